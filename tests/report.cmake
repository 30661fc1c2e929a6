# The graph drawn in the HTML reports, in headless Chromium (label browser):
# before/after marks on a conv-bn ResNet against its fuse-conv-bn result, a
# click opening a node's details, a 100,000-node graph opening collapsed.
# Skipped (77) with the reason when chromium is not installed.
find_program(NNFX_BASH bash)
find_program(NNFX_PYTHON3 python3)
if(NNFX_BASH AND NNFX_PYTHON3)
  add_test(NAME report_graph_chromium COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/report/check_report.sh
                                              $<TARGET_FILE:nnfx> ${CMAKE_CURRENT_BINARY_DIR}/report_graph)
  set_tests_properties(report_graph_chromium PROPERTIES LABELS browser SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# The per-layer charts of the HTML reports (prune, quantize, analyze) read as
# text against the models and the JSON reports; no browser.
if(NNFX_BASH AND NNFX_PYTHON3)
  add_test(NAME report_pages COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/report/check_pages.sh $<TARGET_FILE:nnfx>
                                     ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/report_pages)
endif()
# The same marks on torchvision resnet18 exported with its BatchNorms
# (tests/torchvision/fuse_models.py) against its fuse-conv-bn result, in
# Chromium. Label slow (the export takes about a minute); skipped without
# torch/torchvision/onnx or chromium.
set(NNFX_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and torchvision, for real-model tests")
if(NNFX_BASH AND NNFX_PYTHON3)
  add_test(NAME report_resnet18_chromium
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/report/check_resnet18.sh ${NNFX_TORCH_PYTHON}
                   $<TARGET_FILE:nnfx> ${CMAKE_BINARY_DIR}/report_resnet18)
  set_tests_properties(report_resnet18_chromium PROPERTIES LABELS "slow;browser" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
