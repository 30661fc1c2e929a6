# Command-line tests: tests/cli/test_cli.sh drives the built nnfx binary
# through every subcommand and exit code.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME cli COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.sh $<TARGET_FILE:nnfx>
                            ${CMAKE_CURRENT_SOURCE_DIR}/data/cli ${CMAKE_CURRENT_BINARY_DIR}/cli_tmp)
endif()
if(NNFX_BASH)
  # the output rule of every command (tests/cli/test_outputs.sh)
  add_test(NAME cli_outputs COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_outputs.sh $<TARGET_FILE:nnfx>
                                    ${CMAKE_CURRENT_SOURCE_DIR}/data/cli ${CMAKE_CURRENT_BINARY_DIR}/cli_outputs_tmp)
endif()
