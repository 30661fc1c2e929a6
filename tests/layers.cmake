# The layers of src/ (docs/architecture.md): no include runs from a lower
# layer to a higher one, the generator reads exec only through
# exec/plan_view.h, the public header declares no test-only hook, and no
# source file is over 2,000 lines and the engines retype no attribute
# default of ops.def.
add_test(NAME layers COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/layers/check_layers.cmake)

# No function in src/ over 150 lines (a brace-depth scanner,
# tests/layers/func_lines.py, which lists the offenders); the scanner's own
# check first.
find_program(NNFX_LAYERS_PYTHON3 python3)
if(NNFX_LAYERS_PYTHON3)
  add_test(NAME function_lines_scanner COMMAND ${NNFX_LAYERS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/layers/func_lines.py --self-test)
  add_test(NAME function_lines COMMAND ${NNFX_LAYERS_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/layers/func_lines.py ${CMAKE_SOURCE_DIR} --max 150)
endif()
