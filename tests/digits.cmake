# Real labelled data (tests/data/digits, made by make_digits.py): nnfx run
# against PyTorch's logits and accuracy, the accuracy gate passing a harmless
# rewrite and refusing harmful ones; the seed pipeline script; the torchvision
# figures (label slow, skipped without torchvision); the HTML report rendered
# in headless Chromium (skipped without chromium).
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
