# Coverage op families at model level: the committed PyTorch fixtures in
# tests/data/coverage (GRU and LSTM keyword spotters, a U-Net block with
# ConvTranspose and InstanceNorm, a 3-d conv video block, einsum attention,
# If/Loop control flow and NMS post-processing (ctrl_flow, nms_post);
# regenerate with tests/data/coverage/make_models.py) against PyTorch's
# outputs, then exported, optimised and analysed (tests/coverage/test_coverage.sh).
set(NNFX_COVERAGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python (json only) for the coverage CLI checks")
if(TARGET test_real_models)
  add_test(NAME coverage_models COMMAND test_real_models)
  set_tests_properties(coverage_models PROPERTIES ENVIRONMENT
    "NNFX_REAL_MODELS_DIR=${CMAKE_CURRENT_SOURCE_DIR}/data/coverage;CMOCKA_MESSAGE_OUTPUT=stdout")
  add_test(NAME coverage_cli
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/coverage/test_coverage.sh $<TARGET_FILE:nnfx>
                   $<TARGET_FILE:test_real_models> ${CMAKE_CURRENT_SOURCE_DIR}/data/coverage ${NNFX_COVERAGE_PYTHON})
  # The big ones on demand (label "slow", with -DNNFX_SLOW_TESTS=ON as the
  # torchvision classifiers): r3d_18 and mc3_18 video, swin_t, RAFT (small)
  # optical flow, fcn_resnet50 and lraspp segmentation, ssdlite320_mobilenet_v3_large
  # detection (NMS behind an If; see export_detection in make_models.py).
  if(NNFX_SLOW_TESTS)
    set(NNFX_COVERAGE_SLOW run)
  else()
    set(NNFX_COVERAGE_SLOW skip)
  endif()
  add_test(NAME coverage_torchvision
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/real_models_ctest.sh ${NNFX_COVERAGE_PYTHON}
                   $<TARGET_FILE:test_real_models> ${CMAKE_BINARY_DIR}/coverage_torchvision ${NNFX_COVERAGE_SLOW}
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/coverage/make_models.py)
  set_tests_properties(coverage_torchvision PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 1800
                                                      ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
  # Slow: the generated C of each of them against PyTorch's outputs
  # (tests/codegen/check_codegen_torchvision.py; over 100 MB: generated only)
  if(EXISTS ${NNFX_CG_PYTHON})
    add_test(NAME codegen_coverage_torchvision
             COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_torchvision.py
                     $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_coverage_torchvision
                     ${CMAKE_BINARY_DIR}/coverage_torchvision)
    set_tests_properties(codegen_coverage_torchvision PROPERTIES LABELS slow TIMEOUT 3600 SKIP_RETURN_CODE 77
                                                                 FIXTURES_REQUIRED coverage_torchvision_exported)
    set_tests_properties(coverage_torchvision PROPERTIES FIXTURES_SETUP coverage_torchvision_exported)
  endif()
endif()
