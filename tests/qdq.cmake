# int8 execution of QDQ models: the compiled plan's int8 kernels against
# ONNX Runtime on the same files (tests/data/qdq, made by
# make_qdq_models.py). The kernels themselves: tests/test_qkernels.c.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME qdq_int8_vs_onnxruntime
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/qdq/check_qdq_ort.sh $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR}/qdq_ort)
  set_tests_properties(qdq_int8_vs_onnxruntime PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
