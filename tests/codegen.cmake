# nnfx codegen (src/codegen): generated C for the real-model fixtures, the
# digits and keyword models compiles with cc -std=c99 -pedantic -Werror and
# matches PyTorch's committed outputs; determinism; error exits; the
# keyword model with BN folded and hard_sigmoid links with no libc/libm
# symbol (tests/codegen/check_codegen.py). The Cortex-M4 run under QEMU:
# tests/codegen/qemu_m4.sh (skips when the cross tools are missing).
set(NNFX_CG_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy, for the codegen tests")
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen.py
                                $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_tmp)
  set_tests_properties(codegen PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(NNFX_SANITIZE) # the generated C itself runs under the sanitizers too (each compile and run slower)
    set_tests_properties(codegen PROPERTIES TIMEOUT 900 ENVIRONMENT
                                            "CODEGEN_CFLAGS=-fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
# The same checks with the generated C built for this host's ISA
# (-march=native): the kernels' wide-vector paths (16 lanes with AVX-512, 8
# otherwise) run on real hardware, not only the default target's.
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_native COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen.py
                                       $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_native_tmp)
  set_tests_properties(codegen_native PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT "CODEGEN_CFLAGS=-march=native")
  if(NNFX_SANITIZE)
    set_tests_properties(codegen_native PROPERTIES TIMEOUT 900 ENVIRONMENT
                         "CODEGEN_CFLAGS=-march=native -fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_qemu_m4 COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/qemu_m4.py
                                        $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_m4)
  set_tests_properties(codegen_qemu_m4 PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
# The fast int8 conv kernels (pointwise, 3x3 depthwise) against the
# reference nnfx_rt_qconv on random geometries: host (portable path) and
# QEMU's Cortex-M3 / M4 (DSP path) / M55 (tests/codegen/check_qfast.py).
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_qfast COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_qfast.py
                                      ${CMAKE_CURRENT_BINARY_DIR}/codegen_qfast)
  set_tests_properties(codegen_qfast PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
  if(NNFX_SANITIZE)
    set_tests_properties(codegen_qfast PROPERTIES ENVIRONMENT
                                                  "CODEGEN_CFLAGS=-fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
# int8 (QDQ) models: the generated int8 C against nnfx's runtime (bit for
# bit), ONNX Runtime and PyTorch's QDQ references; --int8; error exits
# (tests/codegen/check_codegen_int8.py).
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_int8 COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_int8.py
                                     $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_int8)
  set_tests_properties(codegen_int8 PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(NNFX_SANITIZE)
    set_tests_properties(codegen_int8 PROPERTIES TIMEOUT 900 ENVIRONMENT
                                                 "CODEGEN_CFLAGS=-fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
# Control flow (If, Loop with a constant, computed or no trip count and a
# condition computed at run time, an If inside a Loop, Scan along any axis):
# the generated C against numpy on both branch outcomes and different trip
# counts, nnfx run on the same models, and the refusals
# (tests/codegen/check_codegen_ctrl.py).
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_ctrl COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_ctrl.py
                                     $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/codegen_ctrl
                                     ${CMAKE_BINARY_DIR}/node_tests)
  # ONNX's test_scan9_sum comes from the node tests' generated cases
  set_tests_properties(codegen_ctrl PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                                               FIXTURES_REQUIRED node_tests_generated)
  if(NNFX_SANITIZE)
    set_tests_properties(codegen_ctrl PROPERTIES TIMEOUT 600 ENVIRONMENT
                                                 "CODEGEN_CFLAGS=-fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
# Every ONNX node test nnfx runs, through the generator: generated C that
# compiles strictly and gives ONNX's expected outputs, or a refusal listed
# in tests/codegen/node_refused.txt (tests/codegen/check_codegen_node.py).
if(EXISTS ${NNFX_CG_PYTHON})
  add_test(NAME codegen_node_tests COMMAND ${NNFX_CG_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/codegen/check_codegen_node.py
                                           $<TARGET_FILE:nnfx> ${CMAKE_SOURCE_DIR}
                                           ${CMAKE_CURRENT_BINARY_DIR}/codegen_node ${CMAKE_BINARY_DIR}/node_tests)
  set_tests_properties(codegen_node_tests PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77
                                                     FIXTURES_REQUIRED node_tests_generated)
  if(NNFX_SANITIZE)
    set_tests_properties(codegen_node_tests PROPERTIES ENVIRONMENT
                                                       "CODEGEN_CFLAGS=-fsanitize=${NNFX_SANITIZERS} -fno-sanitize-recover=all")
  endif()
endif()
