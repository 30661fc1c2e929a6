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

# The fault-injection sweep over whole workflows: a test-only entry point of
# the command (tests/cli/fault_main.c) that fails the k-th allocation or file
# operation, driven by tests/cli/fault_sweep.py.
add_executable(nnfx_fault ${CMAKE_CURRENT_SOURCE_DIR}/cli/fault_main.c)
target_link_libraries(nnfx_fault PRIVATE nnfx_cli)
find_program(NNFX_PYTHON3 python3)
if(NNFX_PYTHON3)
  add_test(NAME cli_fault_sweep
           COMMAND ${NNFX_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/fault_sweep.py $<TARGET_FILE:nnfx_fault>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/cli ${CMAKE_CURRENT_BINARY_DIR}/cli_fault_tmp)
  set_tests_properties(cli_fault_sweep PROPERTIES TIMEOUT 300)
endif()
