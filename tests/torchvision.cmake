# `nnfx analyze` on torchvision resnet18 and mobilenet_v2 (exported on demand
# into the build tree by tests/torchvision/export_models.py): params, MACs
# against an independent count and the published figures, foldable BatchNorm
# findings. Label "slow" (about 15 s, ~60 MB of models); skipped with the
# reason when torchvision is missing:  ctest -L slow  /  ctest -LE slow
set(NNFX_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and torchvision, for real-model tests")
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME torchvision_analyze
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/torchvision/check_analyze.sh ${NNFX_TORCH_PYTHON}
                   $<TARGET_FILE:nnfx> ${CMAKE_BINARY_DIR}/torchvision_analyze)
  set_tests_properties(torchvision_analyze PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# fuse-conv-bn + dce on resnet18 / mobilenet_v2 / efficientnet_b0 with BN kept:
# no BatchNormalization left, output matches PyTorch within 1e-4 relative.
if(NNFX_BASH)
  add_test(NAME torchvision_fuse_conv_bn
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/torchvision/check_fuse.sh ${NNFX_TORCH_PYTHON}
                   $<TARGET_FILE:nnfx> ${CMAKE_BINARY_DIR}/torchvision_fuse)
  set_tests_properties(torchvision_fuse_conv_bn PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
