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
# Files written by `nnfx quantize` (uint8 and int8 activations) from a small
# efficientnet-like CNN made at test time (tests/qdq/make_se_block.py): the
# plan's int8 steps and float islands against ONNX Runtime on each ISA path.
if(NNFX_BASH)
  add_test(NAME qdq_quantized_vs_onnxruntime
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/qdq/check_quantized_ort.sh $<TARGET_FILE:nnfx>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/qdq_quantized_ort)
  set_tests_properties(qdq_quantized_vs_onnxruntime PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
