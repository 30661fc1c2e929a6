# No wrong result passes unnoticed (tests/refusals/test_refusals.sh): weightless text
# IR refused by every command that reads weights, the text IR's values
# round-trip for every name and value, quantize --exclude naming nothing,
# saturating int32 biases and NaN/Inf parameters, NUL bytes in batch lists.
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME refusals COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/refusals/test_refusals.sh
                                 $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/refusals_tmp)
  set_tests_properties(refusals PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()
