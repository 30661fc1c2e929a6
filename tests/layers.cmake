# The layers of src/ (docs/architecture.md): no include runs from a lower
# layer to a higher one, the generator reads exec only through
# exec/plan_view.h, the public header declares no test-only hook, and no
# source file is over 2,000 lines.
add_test(NAME layers COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/layers/check_layers.cmake)
