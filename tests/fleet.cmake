# Fleets of models (tests/fleet/): --shard, --cache, `nnfx report merge` and
# the deployment files under deploy/. Needs Debian's python3-onnx and
# python3-yaml (skipped, 77, without them).
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME fleet COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fleet/test_fleet.sh $<TARGET_FILE:nnfx>
                              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fleet_tmp)
  set_tests_properties(fleet PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
if(NNFX_BASH)
  add_test(NAME modelpack COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fleet/test_modelpack.sh $<TARGET_FILE:nnfx>
                                  ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/modelpack_tmp)
  set_tests_properties(modelpack PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
if(NNFX_BASH)
  add_test(NAME fleet_lists COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fleet/test_fleet_lists.sh
                                    $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fleet_lists_tmp)
  set_tests_properties(fleet_lists PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
