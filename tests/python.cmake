# The Python package (python/nnfx, ctypes over libnnfx.so) under pytest:
# python/tests, with the built library and command. In the sanitizer build the
# library is the ASan+UBSan one, run with the sanitizer runtime preloaded.
# Skipped (exit 77, with the reason) when the Python lacks numpy or pytest;
# the torch comparisons inside are skipped when torch is missing.
set(NNFX_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy and pytest, for the Python package's tests")
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  if(NNFX_SANITIZE)
    set(_nnfx_py_san 1)
  else()
    set(_nnfx_py_san 0)
  endif()
  add_test(NAME python_pytest
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.sh ${NNFX_PYTHON} ${CMAKE_SOURCE_DIR}
                   $<TARGET_FILE:nnfx_shared> $<TARGET_FILE:nnfx> ${_nnfx_py_san} ${CMAKE_BINARY_DIR}/python-tests)
  set_tests_properties(python_pytest PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # The seeds' loops on torchvision's resnet18 against torch.fx and nnfx optimize
  # (about a minute: the export). Label "slow":  ctest -L slow
  add_test(NAME python_pytest_resnet18
           COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.sh ${NNFX_PYTHON} ${CMAKE_SOURCE_DIR}
                   $<TARGET_FILE:nnfx_shared> $<TARGET_FILE:nnfx> ${_nnfx_py_san} ${CMAKE_BINARY_DIR}/python-tests-slow
                   -k resnet18)
  set_tests_properties(python_pytest_resnet18 PROPERTIES LABELS slow SKIP_RETURN_CODE 77 TIMEOUT 900
                       ENVIRONMENT NNFX_PY_SLOW=1)
endif()
