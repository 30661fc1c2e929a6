# The fixed-point requantization shared by the int8 plan and generated C
# (src/rt/nnfx_rt_qfixed.h) against TFLite's formulas
# reimplemented in Python integers (tests/qfixed/check_qfixed.py).
find_program(NNFX_PY3 python3)
if(NNFX_PY3)
  add_test(NAME qfixed COMMAND ${NNFX_PY3} ${CMAKE_CURRENT_SOURCE_DIR}/qfixed/check_qfixed.py ${CMAKE_SOURCE_DIR}
                               ${CMAKE_CURRENT_BINARY_DIR}/qfixed_tmp)
  set_tests_properties(qfixed PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
