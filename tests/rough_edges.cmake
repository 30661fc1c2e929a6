# Rough edges of the seed workflows (tests/rough/test_rough_edges.sh): rewrite
# diagnostics, rule-language aliases and **NODE, text IR with weights, compare
# --labels, analyze on unsupported ops.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME rough_edges COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/rough/test_rough_edges.sh
                                    $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/rough_tmp)
endif()
