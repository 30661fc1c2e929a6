# Structured pruning: `nnfx prune` on the coupling-kind fixtures of
# tests/data/prune (exactness against PyTorch, onnx.checker, ONNX Runtime),
# bad input, sparsity, the accuracy gate (tests/prune/check_prune.sh).
find_program(NNFX_BASH bash)
set(NNFX_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and torchvision, for real-model tests")
if(NNFX_BASH)
  add_test(NAME prune_cli
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/prune/check_prune.sh $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR}/prune_cli ${NNFX_TORCH_PYTHON})
  set_tests_properties(prune_cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# torchvision families at --ratio 0.5 (exported on demand; label slow).
if(NNFX_BASH)
  add_test(NAME prune_torchvision
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/prune/check_torchvision.sh $<TARGET_FILE:nnfx>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/prune_torchvision ${NNFX_TORCH_PYTHON})
  set_tests_properties(prune_torchvision PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
