# Hostile-input corpus: tests/hostile/make_hostile.py writes models and text
# files that once crashed, hung or over-allocated; run_hostile.sh runs each
# through run/analyze/inspect/optimize/export (20 s per case, no signal,
# exit 3 for bad content). Needs python3-onnx to write the corpus.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME hostile COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/run_hostile.sh $<TARGET_FILE:nnfx>
                                ${CMAKE_CURRENT_SOURCE_DIR}/hostile ${CMAKE_CURRENT_BINARY_DIR}/hostile_tmp)
  set_tests_properties(hostile PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
