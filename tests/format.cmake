# Sources follow the committed .clang-format (skipped when clang-format is absent).
add_test(NAME clang_format COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/format/check_format.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(clang_format PROPERTIES SKIP_RETURN_CODE 77)
