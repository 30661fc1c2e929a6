# One meaning per op: every row of the kernel table runs through the
# interpreter (the reference), as a one-node compiled plan (1 and 2
# threads) and as generated C (compiled with cc and run), then the plan
# again with the vector paths turned off (and on AVX2 below).
# `test_kernels differential OP` runs one op's cases through all of them.
add_test(NAME kernels_differential COMMAND test_kernels differential)
add_test(NAME kernels_differential_portable COMMAND test_kernels differential_plan)
set_tests_properties(kernels_differential PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
set_tests_properties(kernels_differential_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
# One op's cases only: `test_kernels differential OP` (nnfx or ONNX name);
# an op without a case in the table is an error, not an empty pass.
add_test(NAME kernels_differential_one_op COMMAND test_kernels differential Conv)
set_tests_properties(kernels_differential_one_op PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout"
                     PASS_REGULAR_EXPRESSION "differential codegen: [1-9][0-9]* cases of 1 ops generated")
add_test(NAME kernels_differential_no_such_op COMMAND test_kernels differential no_such_op)
set_tests_properties(kernels_differential_no_such_op PROPERTIES WILL_FAIL TRUE)
# The fused activations against their scalar meaning (tests/test_act.c) on
# the portable path too (the default run takes the vector row where the CPU
# has it).
add_test(NAME test_act_portable COMMAND test_act)
set_tests_properties(test_act_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
# Hosts with AVX-512 take other float GEMM tiles and int8 VNNI tiles by
# default; NNFX_ISA=avx2 keeps the AVX2 ones (oneDNN's too), so both paths run here (on an
# AVX2-only host these repeat the default run). The real models are checked
# against PyTorch's outputs on each path.
add_test(NAME kernels_differential_avx2 COMMAND test_kernels differential_plan)
set_tests_properties(kernels_differential_avx2 PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=avx2")
add_test(NAME test_real_models_avx2 COMMAND test_real_models)
set_tests_properties(test_real_models_avx2 PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=avx2")
# The sigmoid/SiLU rows: AVX-512 by default on such a host, AVX2 here.
add_test(NAME test_act_avx2 COMMAND test_act)
set_tests_properties(test_act_avx2 PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=avx2")
# Float convs and poolings run on oneDNN where the build has it; NNFX_CONV=own
# runs them on our own kernels (the portable path, and codegen's meaning),
# so both are checked against the interpreter and the real models against
# PyTorch's outputs. oneDNN's AVX2 kernels run in the *_avx2 cases above,
# and NNFX_ISA=portable turns oneDNN off with our vector paths.
add_test(NAME test_fast_exec_own COMMAND test_fast_exec)
set_tests_properties(test_fast_exec_own PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_CONV=own")
add_test(NAME test_fast_exec_avx2 COMMAND test_fast_exec)
set_tests_properties(test_fast_exec_avx2 PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=avx2")
add_test(NAME test_real_models_own COMMAND test_real_models)
set_tests_properties(test_real_models_own PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_CONV=own")
# Which ops of ops.def have a case in the harness above: `test_kernels
# coverage` lists every op with its case count or why it has none, and fails
# when an op has neither (or an op with a case is still listed as without).
add_test(NAME kernels_harness_coverage COMMAND test_kernels coverage)
set_tests_properties(kernels_harness_coverage PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
# The recurrent step's matrix-vector product and fused gates against the
# interpreter (tests/test_rnn_fast.c) on the AVX2 and portable paths too.
add_test(NAME test_rnn_fast_avx2 COMMAND test_rnn_fast)
set_tests_properties(test_rnn_fast_avx2 PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=avx2")
add_test(NAME test_rnn_fast_portable COMMAND test_rnn_fast)
set_tests_properties(test_rnn_fast_portable PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;NNFX_ISA=portable")
