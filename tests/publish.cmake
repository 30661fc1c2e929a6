# Provenance of written models and publishing to OCI registries
# (tests/publish/): python3-onnx reads the metadata back; the registry test
# starts Debian's docker-registry on loopback (skipped, 77, without it).
find_program(NNFX_BASH bash)
if(NNFX_BASH)
  add_test(NAME provenance COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/publish/test_provenance.sh
                                   $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/provenance_tmp)
  set_tests_properties(provenance PROPERTIES SKIP_RETURN_CODE 77)
endif()
if(NNFX_BASH)
  add_test(NAME registry COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/publish/test_registry.sh
                                 $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/registry_tmp)
  set_tests_properties(registry PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
if(NNFX_BASH)
  add_test(NAME runtime_deps COMMAND ${NNFX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/publish/check_runtime_deps.sh
                                     $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR})
  set_tests_properties(runtime_deps PROPERTIES SKIP_RETURN_CODE 77)
endif()
# tests/test_publish.c (auto-registered) also needs the publishing layer
if(TARGET test_publish)
  target_link_libraries(test_publish PRIVATE nnfx_publish)
endif()
# a hostile registry (tests/publish/fake_registry.py, two servers on
# 127.0.0.1): credentials off the origin, header injection, escape
# sequences, oversize and dripping blobs, failed and killed pulls
find_program(NNFX_PYTHON3 python3)
if(NNFX_PYTHON3)
  add_test(NAME hostile_registry
           COMMAND ${NNFX_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/publish/test_hostile_registry.py $<TARGET_FILE:nnfx>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/hostile_registry_tmp)
  set_tests_properties(hostile_registry PROPERTIES TIMEOUT 90)
endif()
