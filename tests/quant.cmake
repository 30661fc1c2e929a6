# int8 quantization (tests/quant): `nnfx quantize` on the digits CNN against
# PyTorch's float accuracy and ONNX Runtime, PyTorch's FX-quantized QDQ
# fixture (tests/data/quant/make_qdq_models.py), bad quantization parameters.
# Skipped (77) with the reason without python3-onnx or onnxruntime-node.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME quant COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/quant/test_quant.sh $<TARGET_FILE:nnfx>
                              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/quant_tmp)
  set_tests_properties(quant PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # resnet18 / mobilenet_v2 / resnet50 quantized by PyTorch FX, generated on
  # demand (minutes, ~200 MB), and resnet18 quantized by nnfx (file size).
  add_test(NAME quant_torchvision
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/quant/test_quant_slow.sh $<TARGET_FILE:nnfx>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/quant_slow)
  set_tests_properties(quant_torchvision PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
