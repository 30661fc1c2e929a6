# ONNX's backend node tests (onnx 1.12, 922 cases) as one CTest case.
# tests/node_tests/generate.py writes them into the build tree the first time
# (Debian's /usr/bin/python3 with python3-onnx; skipped with exit 77 when it
# is missing); run_node_tests runs every case, prints
# "node tests: P passed, F failed, U unsupported of N" and writes the
# per-case list to node_tests.log in the build directory. A failing case not
# in tests/node_tests/expected_failures.txt fails the test. With --engines each
# case runs in the interpreter and the compiled plan at 1 and 2 threads, each
# compared with ONNX's outputs.
#   Run by hand: build/tests/run_node_tests --verbose build/node_tests [test_relu ...]
set(NNFX_ONNX_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with the onnx package, for export checks")
# Cases that must pass (README's figure): fewer is a coverage regression.
set(NNFX_NODE_TESTS_MIN_PASS 860)
add_executable(run_node_tests ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/run_node_tests.c)
target_include_directories(run_node_tests PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(run_node_tests PRIVATE nnfx_static)
add_test(NAME onnx_node_tests
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/run_ctest.sh ${NNFX_ONNX_PYTHON}
                 $<TARGET_FILE:run_node_tests> ${CMAKE_BINARY_DIR}/node_tests ${CMAKE_BINARY_DIR}/node_tests.log
                 ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/expected_failures.txt --min-pass ${NNFX_NODE_TESTS_MIN_PASS}
                 --engines)
set_tests_properties(onnx_node_tests PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 FIXTURES_SETUP node_tests_generated)
# The same cases through an ONNX export and reload of every model: export
# must keep every op it loaded (attributes, optional inputs, multi-output).
add_test(NAME onnx_node_tests_roundtrip
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/run_ctest.sh ${NNFX_ONNX_PYTHON}
                 $<TARGET_FILE:run_node_tests> ${CMAKE_BINARY_DIR}/node_tests ${CMAKE_BINARY_DIR}/node_tests_roundtrip.log
                 ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/expected_failures.txt --roundtrip
                 --min-pass ${NNFX_NODE_TESTS_MIN_PASS})
set_tests_properties(onnx_node_tests_roundtrip PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     FIXTURES_REQUIRED node_tests_generated)
# The cross-engine harness for ops without a kernel-table case (see
# tests/test_kernels.c, kernels_harness_coverage): their node tests through
# the interpreter and the compiled plan at 1 and 2 threads, each against
# ONNX's outputs, and the first passing case of each op also as generated C
# (compiled with cc and run); an op of the list without a passing case fails
# the test. The ops no case of which passes as generated C are listed.
# One op by hand: build/tests/run_node_tests --engines --op NAME build/node_tests
add_test(NAME onnx_node_engines_each_op
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/each_op.sh $<TARGET_FILE:test_kernels> ${NNFX_ONNX_PYTHON}
                 $<TARGET_FILE:run_node_tests> ${CMAKE_BINARY_DIR}/node_tests ${CMAKE_BINARY_DIR}/node_tests_engines.log
                 ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/expected_failures.txt)
set_tests_properties(onnx_node_engines_each_op PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     FIXTURES_REQUIRED node_tests_generated)
# One op's node tests through every engine (the filter: --op, an ONNX type
# or an nnfx name).
add_test(NAME onnx_node_engines_one_op
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/run_ctest.sh ${NNFX_ONNX_PYTHON}
                 $<TARGET_FILE:run_node_tests> ${CMAKE_BINARY_DIR}/node_tests ${CMAKE_BINARY_DIR}/node_tests_one_op.log
                 ${CMAKE_CURRENT_SOURCE_DIR}/node_tests/expected_failures.txt --engines --codegen --each-op
                 --op depth_to_space)
set_tests_properties(onnx_node_engines_one_op PROPERTIES SKIP_RETURN_CODE 77 FIXTURES_REQUIRED node_tests_generated)
