# The install tree and its pkg-config file work for a C program.
set(NNFX_INSTALL_TEST_CFLAGS "")
if(NNFX_SANITIZE)
  set(NNFX_INSTALL_TEST_CFLAGS "-fsanitize=${NNFX_SANITIZERS}")
endif()
add_test(NAME install_pkgconfig
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_install.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/install-test "${NNFX_INSTALL_TEST_CFLAGS}")
add_test(NAME header_example
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_header_example.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/header-example-test "${NNFX_INSTALL_TEST_CFLAGS}")
