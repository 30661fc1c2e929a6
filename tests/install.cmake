# The install tree and its pkg-config file work for a C program.
add_test(NAME install_pkgconfig
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_install.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/install-test)
