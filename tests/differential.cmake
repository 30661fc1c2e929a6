# One meaning per op: every row of the kernel table runs through the
# interpreter and as a one-node compiled plan (1 and 2 threads), once on the
# vector paths this host has and once with them turned off.
add_test(NAME kernels_differential COMMAND test_kernels differential)
add_test(NAME kernels_differential_portable COMMAND test_kernels differential)
set_tests_properties(kernels_differential PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
set_tests_properties(kernels_differential_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
# The fused activations against their scalar meaning (tests/test_act.c) on
# the portable path too (the default run takes the vector row where the CPU
# has it).
add_test(NAME test_act_portable COMMAND test_act)
set_tests_properties(test_act_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
