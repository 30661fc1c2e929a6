# Models written by nnfx (exported, optimised, external data) run in ONNX
# Runtime (npm onnxruntime-node in tests/ort) with PyTorch's outputs.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME onnxruntime_runs_exports
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/ort/test_ort_export.sh $<TARGET_FILE:nnfx>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/ort_exports)
  set_tests_properties(onnxruntime_runs_exports PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
