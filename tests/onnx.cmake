# ONNX export conformance: models written by test_onnx must pass
# onnx.checker.check_model(full_check=True). Uses Debian's /usr/bin/python3
# (python3-onnx); the test is skipped (exit 77) when onnx is missing.
set(NNFX_ONNX_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx package, for export checks")
if(TARGET test_onnx)
  set_tests_properties(test_onnx PROPERTIES FIXTURES_SETUP onnx_exports)
  add_test(NAME onnx_export_checker
           COMMAND ${NNFX_ONNX_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_onnx_export.py
                   ${CMAKE_BINARY_DIR}/test_tmp/onnx_rt)
  set_tests_properties(onnx_export_checker PROPERTIES FIXTURES_REQUIRED onnx_exports SKIP_RETURN_CODE 77)
endif()
