# Real labelled data (tests/data/digits, made by make_digits.py): nnfx run
# against PyTorch's logits and accuracy, the accuracy gate passing a harmless
# rewrite and refusing harmful ones; the seed pipeline script
# (examples/pipeline.sh); the HTML report rendered in headless Chromium
# (skipped without chromium). The torchvision figures: tests/torchvision.cmake.
find_program(NNFX_BASH bash)
find_program(NNFX_PYTHON3 python3)
if(NNFX_BASH AND NNFX_PYTHON3)
  add_test(NAME digits COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/digits/test_digits.sh $<TARGET_FILE:nnfx>
                               ${CMAKE_CURRENT_SOURCE_DIR}/data/digits ${CMAKE_CURRENT_BINARY_DIR}/digits_tmp)
endif()
if(NNFX_BASH AND NNFX_PYTHON3)
  add_test(NAME pipeline COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/digits/test_pipeline.sh $<TARGET_FILE:nnfx>
                                 ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/pipeline_tmp)
endif()
# The HTML report in headless Chromium (label browser): DOM, sorting, a
# screenshot left in the build tree for a person to look at. Skipped (77)
# with the reason when chromium is not installed.
if(NNFX_BASH)
  add_test(NAME html_chromium COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/digits/check_html.sh $<TARGET_FILE:nnfx>
                                      ${CMAKE_CURRENT_SOURCE_DIR}/data/digits ${CMAKE_CURRENT_BINARY_DIR}/html_chromium)
  set_tests_properties(html_chromium PROPERTIES LABELS browser SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
