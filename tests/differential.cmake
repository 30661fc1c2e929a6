# One meaning per op: every row of the kernel table runs through the
# interpreter and as a one-node compiled plan (1 and 2 threads), once on the
# vector paths this host has and once with them turned off.
add_test(NAME kernels_differential COMMAND test_kernels differential)
add_test(NAME kernels_differential_portable COMMAND test_kernels differential)
set_tests_properties(kernels_differential PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
set_tests_properties(kernels_differential_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
