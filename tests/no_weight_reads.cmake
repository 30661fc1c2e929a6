# Looking at a model reads no weights: test_no_weight_reads loads a model
# whose weights are ONNX external data, truncates the data file (any later
# read of a weight page raises SIGBUS), then runs what `nnfx inspect` and
# `nnfx analyze` do after loading (the CLI's own analysis and JSON code is
# linked in: the nnfx_cli library).
add_executable(test_no_weight_reads ${CMAKE_CURRENT_SOURCE_DIR}/no_weight_reads/test_no_weight_reads.c
                                    ${CMAKE_CURRENT_SOURCE_DIR}/testutil.c)
target_include_directories(test_no_weight_reads PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(test_no_weight_reads PRIVATE NNFX_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data"
                                                        NNFX_BINARY_DIR="${CMAKE_BINARY_DIR}")
target_link_libraries(test_no_weight_reads PRIVATE nnfx_cli PkgConfig::CMOCKA)
add_test(NAME test_no_weight_reads COMMAND test_no_weight_reads)
set_tests_properties(test_no_weight_reads PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
