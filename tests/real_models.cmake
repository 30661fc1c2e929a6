# Real models: test_real_models (a tests/test_*.c program) checks the small
# committed fixtures in tests/data/real_models against PyTorch's outputs.
# This adds the torchvision set (resnet18 ... vit_b_16, random weights),
# exported on demand into the build tree; label "slow", so the default run
# can leave it out:  ctest -LE slow   /   ctest -L slow
# It only runs when configured with -DNNFX_SLOW_TESTS=ON (about 600 MB of
# exported models and a minute and a half of export); otherwise it reports a
# skip with that reason, so the default suite stays fast.
option(NNFX_SLOW_TESTS "Run slow tests (torchvision real models)" OFF)
set(NNFX_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and torchvision, for real-model tests")
if(TARGET test_real_models)
  if(NNFX_SLOW_TESTS)
    set(NNFX_SLOW_FLAG run)
  else()
    set(NNFX_SLOW_FLAG skip)
  endif()
  add_test(NAME real_models_torchvision
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/real_models_ctest.sh ${NNFX_TORCH_PYTHON}
                   $<TARGET_FILE:test_real_models> ${CMAKE_BINARY_DIR}/real_models_torchvision
                   ${NNFX_SLOW_FLAG})
  set_tests_properties(real_models_torchvision PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 1800
                                                         ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
endif()
# Slow: the generated C of every torchvision classifier real_models_torchvision
# exports, against PyTorch's outputs (tests/codegen/check_codegen_torchvision.py).
if(EXISTS ${NNFX_CG_PYTHON} AND TARGET test_real_models)
  add_test(NAME codegen_torchvision
           COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_torchvision.py
                   $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_torchvision
                   ${CMAKE_BINARY_DIR}/real_models_torchvision)
  set_tests_properties(codegen_torchvision PROPERTIES LABELS slow TIMEOUT 3600 SKIP_RETURN_CODE 77
                                                      FIXTURES_REQUIRED torchvision_exported)
  set_tests_properties(real_models_torchvision PROPERTIES FIXTURES_SETUP torchvision_exported)
endif()
# Slow: the generated C of torchvision's ssdlite320 detector (post-processing
# sized by data-dependent counts) against PyTorch's detections.
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_detector
           COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_detector.py
                   $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_detector)
  set_tests_properties(codegen_detector PROPERTIES LABELS slow TIMEOUT 1800 SKIP_RETURN_CODE 77)
endif()
