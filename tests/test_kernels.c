/* test_kernels.c — every op's shape inference and CPU kernel against
 * PyTorch references (tests/data/kernels, written by gen_kernel_refs.py),
 * plus bad-input checks, symbolic dims, costs and .npy I/O. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"
#include "testutil.h"

/* ---- attribute literals ------------------------------------------------- */

#define AI(nm, v)                                                                                                      \
    { .name = nm, .kind = NNFX_ATTR_INT, .u.i = (v) }
#define AF(nm, v)                                                                                                      \
    { .name = nm, .kind = NNFX_ATTR_FLOAT, .u.f = (v) }
#define AS(nm, v)                                                                                                      \
    { .name = nm, .kind = NNFX_ATTR_STRING, .u.s = (v) }
#define AINTS(nm, ...)                                                                                                 \
    {                                                                                                                  \
        .name = nm, .kind = NNFX_ATTR_INTS, .u.ints = {                                                                \
            (const int64_t[]){__VA_ARGS__},                                                                            \
            (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))                                            \
        }                                                                                                              \
    }
#define AFLOATS(nm, ...)                                                                                               \
    {                                                                                                                  \
        .name = nm, .kind = NNFX_ATTR_FLOATS, .u.floats = {                                                            \
            (const float[]){__VA_ARGS__},                                                                              \
            (int)(sizeof((const float[]){__VA_ARGS__}) / sizeof(float))                                                \
        }                                                                                                              \
    }

/* One reference case: files <name>.in<i>.npy / <name>.out<k>.npy. args has
 * one letter per positional input: 'p' a placeholder (value unknown to
 * static inference), 'c' a parameter (get_attr, value known), '-' absent. */
typedef struct kcase {
    const char *name;
    nnfx_op op;
    const char *args;
    double atol, rtol;
    nnfx_attr attrs[8];
    int nout; /* outputs of an op whose optional outputs are asked for (MaxPool's indices); 0: the default */
} kcase;

#define T  1e-5, 1e-4
#define TL 1e-4, 1e-4

static const kcase cases[] = {
    /* convolution */
    {"conv_basic", NNFX_OP_CONV, "pcc", TL, {AINTS("pads", 1, 1, 1, 1)}},
    {"conv_stride_dil",
     NNFX_OP_CONV,
     "pc",
     TL,
     {AINTS("strides", 2, 2), AINTS("dilations", 2, 2), AINTS("pads", 1, 2, 1, 2)}},
    {"conv_group", NNFX_OP_CONV, "pcc", TL, {AI("group", 2)}},
    {"conv_dw", NNFX_OP_CONV, "pcc", TL, {AI("group", 8), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1)}},
    {"conv_dw_mult", NNFX_OP_CONV, "pc", TL, {AI("group", 3), AINTS("pads", 1, 1, 1, 1)}},
    {"conv_dw_dil",
     NNFX_OP_CONV,
     "pc",
     TL,
     {AI("group", 4), AINTS("strides", 3, 2), AINTS("dilations", 2, 2), AINTS("pads", 2, 2, 2, 2)}},
    {"conv_1x1", NNFX_OP_CONV, "pcc", TL, {AINTS("kernel_shape", 1, 1)}},
    {"conv_1d", NNFX_OP_CONV, "pcc", TL, {AINTS("strides", 2), AINTS("pads", 1, 1)}},
    {"conv_asym_pad", NNFX_OP_CONV, "pc", TL, {AINTS("pads", 0, 1, 1, 2)}},
    /* normalisation */
    {"batch_norm", NNFX_OP_BATCH_NORM, "pcccc", T, {AF("epsilon", 1e-5)}},
    {"layer_norm", NNFX_OP_LAYER_NORM, "pcc", TL, {AI("axis", -1)}},
    {"layer_norm_2d", NNFX_OP_LAYER_NORM, "pc", TL, {AI("axis", -2), AF("epsilon", 1e-3)}},
    {"softmax_last", NNFX_OP_SOFTMAX, "p", T, {AI("axis", -1)}},
    {"softmax_axis1", NNFX_OP_SOFTMAX, "p", T, {AI("axis", 1)}},
    {"log_softmax_last", NNFX_OP_LOG_SOFTMAX, "p", T, {AI("axis", -1)}},
    {"log_softmax_axis0", NNFX_OP_LOG_SOFTMAX, "p", T, {AI("axis", 0)}},
    /* gemm / matmul */
    {"gemm_basic", NNFX_OP_GEMM, "pcc", TL, {{0}}},
    {"gemm_trans", NNFX_OP_GEMM, "pcc", TL, {AI("transA", 1), AI("transB", 1), AF("alpha", 0.5), AF("beta", 2.0)}},
    {"gemm_nobias", NNFX_OP_GEMM, "pc", TL, {AI("transB", 1)}},
    {"gemm_c_col", NNFX_OP_GEMM, "pcc", TL, {{0}}},
    {"matmul_2d", NNFX_OP_MATMUL, "pc", TL, {{0}}},
    {"matmul_batched", NNFX_OP_MATMUL, "pp", TL, {{0}}},
    {"matmul_bcast", NNFX_OP_MATMUL, "pp", TL, {{0}}},
    {"matmul_shared", NNFX_OP_MATMUL, "pc", TL, {{0}}},
    {"matmul_shared_b", NNFX_OP_MATMUL, "cp", TL, {{0}}},
    {"matmul_vec_left", NNFX_OP_MATMUL, "pc", TL, {{0}}},
    {"matmul_vec_right", NNFX_OP_MATMUL, "pc", TL, {{0}}},
    /* pooling */
    {"maxpool_basic",
     NNFX_OP_MAX_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 3, 3), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1)}},
    {"avgpool_incl",
     NNFX_OP_AVERAGE_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 3, 3), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1), AI("count_include_pad", 1)}},
    {"avgpool_excl",
     NNFX_OP_AVERAGE_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 3, 3), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1), AI("count_include_pad", 0)}},
    {"maxpool_ceil",
     NNFX_OP_MAX_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 2, 2), AINTS("strides", 2, 2), AI("ceil_mode", 1)}},
    {"avgpool_ceil",
     NNFX_OP_AVERAGE_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 3, 3), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1), AI("ceil_mode", 1),
      AI("count_include_pad", 1)}},
    {"avgpool_ceil_excl",
     NNFX_OP_AVERAGE_POOL,
     "p",
     T,
     {AINTS("kernel_shape", 3, 3), AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1), AI("ceil_mode", 1),
      AI("count_include_pad", 0)}},
    {"maxpool_dil", NNFX_OP_MAX_POOL, "p", T, {AINTS("kernel_shape", 2, 2), AINTS("dilations", 2, 2)}},
    {"maxpool_1d", NNFX_OP_MAX_POOL, "p", T, {AINTS("kernel_shape", 3), AINTS("strides", 2)}},
    {"global_avg", NNFX_OP_GLOBAL_AVERAGE_POOL, "p", T, {{0}}},
    {"global_max", NNFX_OP_GLOBAL_MAX_POOL, "p", T, {{0}}},
    /* activations and math */
    {"relu", NNFX_OP_RELU, "p", T, {{0}}},
    {"leaky_relu", NNFX_OP_LEAKY_RELU, "p", T, {AF("alpha", 0.1)}},
    {"sigmoid", NNFX_OP_SIGMOID, "p", T, {{0}}},
    {"hard_sigmoid", NNFX_OP_HARD_SIGMOID, "p", T, {AF("alpha", 1.0 / 6.0), AF("beta", 0.5)}},
    {"hard_swish", NNFX_OP_HARD_SWISH, "p", T, {{0}}},
    {"tanh", NNFX_OP_TANH, "p", T, {{0}}},
    {"elu", NNFX_OP_ELU, "p", T, {AF("alpha", 0.5)}},
    {"erf", NNFX_OP_ERF, "p", T, {{0}}},
    {"exp", NNFX_OP_EXP, "p", T, {{0}}},
    {"log", NNFX_OP_LOG, "p", T, {{0}}},
    {"sqrt", NNFX_OP_SQRT, "p", T, {{0}}},
    {"neg", NNFX_OP_NEG, "p", T, {{0}}},
    {"abs", NNFX_OP_ABS, "p", T, {{0}}},
    {"reciprocal", NNFX_OP_RECIPROCAL, "p", T, {{0}}},
    {"identity", NNFX_OP_IDENTITY, "p", T, {{0}}},
    {"dropout", NNFX_OP_DROPOUT, "p", T, {{0}}},
    {"prelu", NNFX_OP_PRELU, "pc", T, {{0}}},
    {"clip", NNFX_OP_CLIP, "pcc", T, {{0}}},
    {"clip_min", NNFX_OP_CLIP, "pc", T, {{0}}},
    /* broadcasting binary ops */
    {"add_same", NNFX_OP_ADD, "pp", T, {{0}}},
    {"add_bcast", NNFX_OP_ADD, "pc", T, {{0}}},
    {"sub_bcast_left", NNFX_OP_SUB, "cp", T, {{0}}},
    {"mul_scalar", NNFX_OP_MUL, "pc", T, {{0}}},
    {"div_bcast", NNFX_OP_DIV, "pp", T, {{0}}},
    {"pow_scalar", NNFX_OP_POW, "pc", T, {{0}}},
    {"pow_tensor", NNFX_OP_POW, "pc", T, {{0}}},
    {"pow_square", NNFX_OP_POW, "pc", 0, 0, {{0}}}, /* x^2 is x * x, as PyTorch's: exact */
    {"mul_int64", NNFX_OP_MUL, "pp", 0, 0, {{0}}},
    {"add_int64", NNFX_OP_ADD, "pc", 0, 0, {{0}}},
    {"div_int64", NNFX_OP_DIV, "pc", 0, 0, {{0}}},
    {"equal", NNFX_OP_EQUAL, "pp", 0, 0, {{0}}},
    {"less", NNFX_OP_LESS, "pp", 0, 0, {{0}}},
    {"greater", NNFX_OP_GREATER, "pp", 0, 0, {{0}}},
    {"equal_int64", NNFX_OP_EQUAL, "pc", 0, 0, {{0}}},
    {"where", NNFX_OP_WHERE, "ppp", 0, 0, {{0}}},
    /* reductions */
    {"reduce_mean_keep", NNFX_OP_REDUCE_MEAN, "pc", T, {AI("keepdims", 1)}},
    {"reduce_sum_nokeep", NNFX_OP_REDUCE_SUM, "pc", T, {AI("keepdims", 0)}},
    {"reduce_max_last", NNFX_OP_REDUCE_MAX, "pc", T, {{0}}},
    {"reduce_mean_all", NNFX_OP_REDUCE_MEAN, "p", T, {AI("keepdims", 0)}},
    {"reduce_mean_last", NNFX_OP_REDUCE_MEAN, "pc", T, {AI("keepdims", 1)}}, /* LayerNorm's: the plan's row sums */
    {"argmax_keep", NNFX_OP_ARGMAX, "p", 0, 0, {AI("axis", 1), AI("keepdims", 1)}},
    {"argmax_last", NNFX_OP_ARGMAX, "p", 0, 0, {AI("axis", -1), AI("keepdims", 0)}},
    /* shape and data movement */
    {"flatten_1", NNFX_OP_FLATTEN, "p", 0, 0, {AI("axis", 1)}},
    {"flatten_0", NNFX_OP_FLATTEN, "p", 0, 0, {AI("axis", 0)}},
    {"flatten_2", NNFX_OP_FLATTEN, "p", 0, 0, {AI("axis", 2)}},
    {"reshape", NNFX_OP_RESHAPE, "pc", 0, 0, {{0}}},
    {"squeeze_axes", NNFX_OP_SQUEEZE, "pc", 0, 0, {{0}}},
    {"squeeze_all", NNFX_OP_SQUEEZE, "p", 0, 0, {{0}}},
    {"unsqueeze", NNFX_OP_UNSQUEEZE, "pc", 0, 0, {{0}}},
    {"transpose_perm", NNFX_OP_TRANSPOSE, "p", 0, 0, {AINTS("perm", 0, 2, 3, 1)}},
    {"transpose_default", NNFX_OP_TRANSPOSE, "p", 0, 0, {{0}}},
    {"transpose_window", NNFX_OP_TRANSPOSE, "p", 0, 0, {AINTS("perm", 0, 1, 3, 2, 4, 5)}}, /* runs of w x C merged */
    {"concat", NNFX_OP_CONCAT, "ppp", 0, 0, {AI("axis", 1)}},
    {"concat_int64", NNFX_OP_CONCAT, "pc", 0, 0, {AI("axis", 0)}},
    {"split_sizes", NNFX_OP_SPLIT, "pc", 0, 0, {AI("axis", 1), AI("num_outputs", 3)}},
    {"split_equal", NNFX_OP_SPLIT, "p", 0, 0, {AI("axis", 1), AI("num_outputs", 3)}},
    {"slice_neg_step", NNFX_OP_SLICE, "pcccc", 0, 0, {{0}}},
    {"slice_basic", NNFX_OP_SLICE, "pcc", 0, 0, {{0}}},
    {"gather_axis0", NNFX_OP_GATHER, "pc", 0, 0, {AI("axis", 0)}},
    {"gather_int64", NNFX_OP_GATHER, "pc", 0, 0, {AI("axis", 1)}},
    {"gather_shape_chain", NNFX_OP_GATHER, "pp", 0, 0, {AI("axis", 0)}},
    {"pad_constant", NNFX_OP_PAD, "pcc", 0, 0, {AS("mode", "constant")}},
    {"pad_reflect", NNFX_OP_PAD, "pc", 0, 0, {AS("mode", "reflect")}},
    {"pad_edge", NNFX_OP_PAD, "pc", 0, 0, {AS("mode", "edge")}},
    {"pad_window", NNFX_OP_PAD, "pc", 0, 0, {AS("mode", "constant")}}, /* channels-last window pad: by rows */
    {"expand", NNFX_OP_EXPAND, "pc", 0, 0, {{0}}},
    {"tile", NNFX_OP_TILE, "pc", 0, 0, {{0}}},
    {"resize_nearest",
     NNFX_OP_RESIZE,
     "pcc",
     T,
     {AS("mode", "nearest"), AS("coordinate_transformation_mode", "asymmetric"), AS("nearest_mode", "floor")}},
    {"resize_nearest_sizes",
     NNFX_OP_RESIZE,
     "pccc",
     T,
     {AS("mode", "nearest"), AS("coordinate_transformation_mode", "asymmetric"), AS("nearest_mode", "floor")}},
    {"resize_linear",
     NNFX_OP_RESIZE,
     "pcc",
     T,
     {AS("mode", "linear"), AS("coordinate_transformation_mode", "pytorch_half_pixel")}},
    {"resize_linear_frac",
     NNFX_OP_RESIZE,
     "pcc",
     T,
     {AS("mode", "linear"), AS("coordinate_transformation_mode", "pytorch_half_pixel")}},
    {"resize_align",
     NNFX_OP_RESIZE,
     "pccc",
     T,
     {AS("mode", "linear"), AS("coordinate_transformation_mode", "align_corners")}},
    {"resize_linear_up8",
     NNFX_OP_RESIZE,
     "pccc",
     T,
     {AS("mode", "linear"), AS("coordinate_transformation_mode", "pytorch_half_pixel")}},
    {"resize_linear_h_only",
     NNFX_OP_RESIZE,
     "pccc",
     T,
     {AS("mode", "linear"), AS("coordinate_transformation_mode", "pytorch_half_pixel")}},
    {"cast_f2i", NNFX_OP_CAST, "p", 0, 0, {AI("to", NNFX_I64)}},
    {"cast_i2f", NNFX_OP_CAST, "p", 0, 0, {AI("to", NNFX_F32)}},
    {"cast_f2b", NNFX_OP_CAST, "p", 0, 0, {AI("to", NNFX_BOOL)}},
    {"range_float", NNFX_OP_RANGE, "ccc", 1e-6, 0, {{0}}},
    {"range_int", NNFX_OP_RANGE, "ppp", 0, 0, {{0}}},
    {"shape", NNFX_OP_SHAPE, "p", 0, 0, {{0}}},
    /* multi-output ops */
    {"split_uneven", NNFX_OP_SPLIT, "p", 0, 0, {AI("axis", 1), AI("num_outputs", 3)}},
    {"split_last", NNFX_OP_SPLIT, "pc", 0, 0, {AI("axis", 2), AI("num_outputs", 2)}},
    {"topk_largest", NNFX_OP_TOPK, "pc", 0, 0, {AI("axis", -1)}},
    {"topk_smallest_axis1", NNFX_OP_TOPK, "pc", 0, 0, {AI("axis", 1), AI("largest", 0)}},
    {"maxpool_indices", NNFX_OP_MAX_POOL, "p", T, {AINTS("kernel_shape", 2, 2), AINTS("strides", 2, 2)}, 2},
    {"lp_norm_p1", NNFX_OP_LP_NORM, "p", T, {AI("axis", 1), AI("p", 1)}},
    {"lp_norm_p2", NNFX_OP_LP_NORM, "p", T, {{0}}},
    {"mish", NNFX_OP_MISH, "p", T, {{0}}},
    {"bitwise_and", NNFX_OP_BITWISE_AND, "pp", 0, 0, {{0}}},
    {"bitwise_or", NNFX_OP_BITWISE_OR, "pc", 0, 0, {{0}}},
    {"bitwise_xor", NNFX_OP_BITWISE_XOR, "pp", 0, 0, {{0}}},
    {"bitwise_not", NNFX_OP_BITWISE_NOT, "p", 0, 0, {{0}}},
    /* recurrent layers against nn.LSTM / nn.GRU (numpy for linear_before_reset 0): the compiled plan
     * runs their vector gate rows (kern_lstm_fast / kern_gru_fast) */
    {"lstm_bidir", NNFX_OP_LSTM, "pccc-pp", TL, {AS("direction", "bidirectional"), AI("hidden_size", 19)}, 3},
    {"gru_lbr", NNFX_OP_GRU, "pccc-p", TL, {AI("hidden_size", 19), AI("linear_before_reset", 1)}, 2},
    {"gru_lbr0", NNFX_OP_GRU, "pccc-p", TL, {AI("hidden_size", 19)}, 2},
    /* a 3-d conv with asymmetric pads (ONNX order: begins D, H, W then ends) */
    {"conv3d_stride_pad", NNFX_OP_CONV, "pcc", TL, {AINTS("strides", 1, 2, 1), AINTS("pads", 0, 1, 1, 1, 1, 0)}},
    /* ConvTranspose: U-Net's 2x2/s2 up-sampling, end pads from output_padding, dilation */
    {"convt_2x2_s2", NNFX_OP_CONV_TRANSPOSE, "pcc", TL, {AINTS("strides", 2, 2)}},
    {"convt_pad_outpad",
     NNFX_OP_CONV_TRANSPOSE,
     "pc",
     TL,
     {AINTS("strides", 2, 2), AINTS("pads", 1, 1, 1, 1), AINTS("output_padding", 1, 1)}},
    {"convt_dil",
     NNFX_OP_CONV_TRANSPOSE,
     "pcc",
     TL,
     {AINTS("strides", 1, 2), AINTS("pads", 2, 0, 2, 0), AINTS("dilations", 2, 2)}},
    /* ops whose only cases were ONNX's node tests before (references: PyTorch, numpy, torchvision) */
    {"sin", NNFX_OP_SIN, "p", T, {{0}}},
    {"cos", NNFX_OP_COS, "p", T, {{0}}},
    {"tan", NNFX_OP_TAN, "p", T, {{0}}},
    {"asin", NNFX_OP_ASIN, "p", T, {{0}}},
    {"acos", NNFX_OP_ACOS, "p", T, {{0}}},
    {"atan", NNFX_OP_ATAN, "p", T, {{0}}},
    {"sinh", NNFX_OP_SINH, "p", T, {{0}}},
    {"cosh", NNFX_OP_COSH, "p", T, {{0}}},
    {"asinh", NNFX_OP_ASINH, "p", T, {{0}}},
    {"acosh", NNFX_OP_ACOSH, "p", T, {{0}}},
    {"atanh", NNFX_OP_ATANH, "p", T, {{0}}},
    {"ceil", NNFX_OP_CEIL, "p", 0, 0, {{0}}},
    {"floor", NNFX_OP_FLOOR, "p", 0, 0, {{0}}},
    {"round", NNFX_OP_ROUND, "p", 0, 0, {{0}}},
    {"sign", NNFX_OP_SIGN, "p", 0, 0, {{0}}},
    {"softplus", NNFX_OP_SOFTPLUS, "p", T, {{0}}},
    {"softsign", NNFX_OP_SOFTSIGN, "p", T, {{0}}},
    {"selu", NNFX_OP_SELU, "p", T, {{0}}},
    {"celu", NNFX_OP_CELU, "p", T, {AF("alpha", 0.7)}},
    {"thresholded_relu", NNFX_OP_THRESHOLDED_RELU, "p", T, {{0}}},
    {"shrink", NNFX_OP_SHRINK, "p", T, {AF("bias", 0.5), AF("lambd", 0.5)}},
    {"hardmax", NNFX_OP_HARDMAX, "p", 0, 0, {{0}}},
    {"size", NNFX_OP_SIZE, "p", 0, 0, {{0}}},
    {"is_nan", NNFX_OP_IS_NAN, "p", 0, 0, {{0}}},
    {"is_inf", NNFX_OP_IS_INF, "p", 0, 0, {{0}}},
    {"min3", NNFX_OP_MIN, "ppp", 0, 0, {{0}}},
    {"max3", NNFX_OP_MAX, "ppp", 0, 0, {{0}}},
    {"sum3", NNFX_OP_SUM, "ppp", T, {{0}}},
    {"mean3", NNFX_OP_MEAN, "ppp", T, {{0}}},
    {"greater_or_equal", NNFX_OP_GREATER_OR_EQUAL, "pp", 0, 0, {{0}}},
    {"less_or_equal", NNFX_OP_LESS_OR_EQUAL, "pp", 0, 0, {{0}}},
    {"mod_fmod", NNFX_OP_MOD, "pp", T, {AI("fmod", 1)}},
    {"mod_int", NNFX_OP_MOD, "pp", 0, 0, {{0}}},
    {"reduce_min_keep", NNFX_OP_REDUCE_MIN, "pc", 0, 0, {{0}}},
    {"reduce_prod_nokeep", NNFX_OP_REDUCE_PROD, "pc", T, {AI("keepdims", 0)}},
    {"reduce_l1_keep", NNFX_OP_REDUCE_L1, "pc", T, {{0}}},
    {"reduce_l2_nokeep", NNFX_OP_REDUCE_L2, "pc", T, {AI("keepdims", 0)}},
    {"reduce_log_sum_keep", NNFX_OP_REDUCE_LOG_SUM, "pc", T, {{0}}},
    {"reduce_log_sum_exp_keep", NNFX_OP_REDUCE_LOG_SUM_EXP, "pc", T, {{0}}},
    {"reduce_sum_square_nokeep", NNFX_OP_REDUCE_SUM_SQUARE, "pc", T, {AI("keepdims", 0)}},
    {"argmin_keep", NNFX_OP_ARGMIN, "p", 0, 0, {AI("axis", 1)}},
    {"cum_sum", NNFX_OP_CUM_SUM, "pc", T, {{0}}},
    {"trilu_upper", NNFX_OP_TRILU, "pc", 0, 0, {{0}}},
    {"trilu_lower", NNFX_OP_TRILU, "pc", 0, 0, {AI("upper", 0)}},
    {"gather_elements", NNFX_OP_GATHER_ELEMENTS, "pc", 0, 0, {AI("axis", 1)}},
    {"depth_to_space_dcr", NNFX_OP_DEPTH_TO_SPACE, "p", 0, 0, {AI("blocksize", 2)}},
    {"depth_to_space_crd", NNFX_OP_DEPTH_TO_SPACE, "p", 0, 0, {AI("blocksize", 2), AS("mode", "CRD")}},
    {"space_to_depth", NNFX_OP_SPACE_TO_DEPTH, "p", 0, 0, {AI("blocksize", 2)}},
    {"instance_norm", NNFX_OP_INSTANCE_NORM, "pcc", TL, {{0}}},
    {"lrn", NNFX_OP_LRN, "p", TL, {AI("size", 3), AF("alpha", 0.02)}},
    {"mvn", NNFX_OP_MVN, "p", TL, {AINTS("axes", 0, 2, 3)}},
    {"det", NNFX_OP_DET, "p", TL, {{0}}},
    {"eye_like", NNFX_OP_EYE_LIKE, "p", 0, 0, {AI("k", 1)}},
    {"not", NNFX_OP_NOT, "p", 0, 0, {{0}}},
    {"and", NNFX_OP_AND, "pp", 0, 0, {{0}}},
    {"or", NNFX_OP_OR, "pp", 0, 0, {{0}}},
    {"xor", NNFX_OP_XOR, "pp", 0, 0, {{0}}},
    {"cast_like", NNFX_OP_CAST_LIKE, "pc", 0, 0, {{0}}},
    {"reverse_sequence", NNFX_OP_REVERSE_SEQUENCE, "pc", 0, 0, {{0}}},
    {"one_hot", NNFX_OP_ONE_HOT, "pcc", 0, 0, {{0}}},
    {"gather_nd", NNFX_OP_GATHER_ND, "pc", 0, 0, {{0}}},
    {"scatter_nd", NNFX_OP_SCATTER_ND, "pcp", 0, 0, {{0}}},
    {"scatter_elements", NNFX_OP_SCATTER_ELEMENTS, "pcp", 0, 0, {AI("axis", 1)}},
    {"scatter_elements_add", NNFX_OP_SCATTER_ELEMENTS, "pcp", T, {AI("axis", 1), AS("reduction", "add")}},
    {"scatter", NNFX_OP_SCATTER, "pcp", 0, 0, {AI("axis", 1)}},
    {"einsum_bmm", NNFX_OP_EINSUM, "pp", T, {AS("equation", "bij,bjk->bik")}},
    {"einsum_attn_qk", NNFX_OP_EINSUM, "pp", T, {AS("equation", "bghid,bghjd->bghij")}}, /* GEMM, B transposed */
    {"einsum_attn_av", NNFX_OP_EINSUM, "pp", T, {AS("equation", "bghij,bghjd->bghid")}},
    {"grid_sample", NNFX_OP_GRID_SAMPLE, "pp", T, {{0}}},
    {"constant_of_shape", NNFX_OP_CONSTANT_OF_SHAPE, "c", 0, 0, {{0}}},
    {"hann_window", NNFX_OP_HANN_WINDOW, "c", T, {{0}}},
    {"hamming_window", NNFX_OP_HAMMING_WINDOW, "c", T, {{0}}},
    {"blackman_window", NNFX_OP_BLACKMAN_WINDOW, "c", T, {{0}}},
    {"nll_loss", NNFX_OP_NLL_LOSS, "pc", T, {{0}}},
    {"sce_loss", NNFX_OP_SCE_LOSS, "pc", T, {{0}}},
    {"max_unpool", NNFX_OP_MAX_UNPOOL, "pc", 0, 0, {AINTS("kernel_shape", 2, 2), AINTS("strides", 2, 2)}},
    {"non_zero", NNFX_OP_NON_ZERO, "p", 0, 0, {{0}}},
    {"compress", NNFX_OP_COMPRESS, "pp", 0, 0, {AI("axis", 1)}},
    {"unique_sorted", NNFX_OP_UNIQUE, "p", 0, 0, {{0}}, 4},
    {"dft", NNFX_OP_DFT, "p", TL, {{0}}},
    {"bit_shift_right", NNFX_OP_BIT_SHIFT, "pp", 0, 0, {AS("direction", "RIGHT")}},
    {"bit_shift_left", NNFX_OP_BIT_SHIFT, "pp", 0, 0, {AS("direction", "LEFT")}},
    {"rnn", NNFX_OP_RNN, "pccc", TL, {AI("hidden_size", 5)}, 2},
    {"quantize_linear", NNFX_OP_QUANTIZE_LINEAR, "pcc", 0, 0, {{0}}},
    {"dequantize_linear", NNFX_OP_DEQUANTIZE_LINEAR, "pcc", T, {{0}}},
    {"dynamic_quantize_linear", NNFX_OP_DYNAMIC_QUANTIZE_LINEAR, "p", 0, 0, {{0}}, 3},
    {"matmul_integer", NNFX_OP_MATMUL_INTEGER, "pccc", 0, 0, {{0}}},
    {"qlinear_matmul", NNFX_OP_QLINEAR_MATMUL, "pccccccc", 0, 0, {{0}}},
    {"conv_integer", NNFX_OP_CONV_INTEGER, "pccc", 0, 0, {AINTS("pads", 1, 1, 1, 1)}},
    {"qlinear_conv", NNFX_OP_QLINEAR_CONV, "pccccccc", 0, 0, {AINTS("pads", 1, 1, 1, 1)}},
    {"stft", NNFX_OP_STFT, "pccc", TL, {{0}}},
    {"nms", NNFX_OP_NMS, "ppccc", 0, 0, {{0}}},
    {"constant_float", NNFX_OP_CONSTANT, "", 0, 0, {AF("value_float", 2.5)}},
    {"roi_align",
     NNFX_OP_ROI_ALIGN,
     "pcc",
     TL,
     {AI("output_height", 2), AI("output_width", 3), AI("sampling_ratio", 2)}},
    /* ONNX's formula in numpy; n-grams counted in Python (bigrams at skips 0 and 1, a permuted ngram_indexes) */
    {"mel_weight_matrix", NNFX_OP_MEL_WEIGHT_MATRIX, "ccccc", T, {{0}}},
    {"tfidf_vectorizer",
     NNFX_OP_TFIDF,
     "p",
     0,
     0,
     {AS("mode", "TFIDF"), AI("min_gram_length", 1), AI("max_gram_length", 2), AI("max_skip_count", 1),
      AINTS("ngram_counts", 0, 4), AINTS("ngram_indexes", 1, 0, 3, 2, 6, 5, 4),
      AINTS("pool_int64s", 2, 3, 5, 4, 5, 6, 7, 8, 6, 7),
      AFLOATS("weights", 0.5f, 1.5f, 2.0f, 1.0f, 3.0f, 0.25f, 1.25f)}},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int num_attrs(const kcase *k) {
    int n = 0;
    while (n < 8 && k->attrs[n].name)
        n++;
    return n;
}

/* A graph: inputs (placeholders / parameters) -> op -> output (through a
 * getitem per output of a multi-output op). */
typedef struct built {
    nnfx_graph *g;
    nnfx_node *node;
    nnfx_tensor *in[8];
    int nin;
} built;

static nnfx_status build(built *b, nnfx_op op, const char *args, nnfx_tensor *const *inputs, int nattrs,
                         const nnfx_attr *attrs, int want_nout, nnfx_error *err) {
    memset(b, 0, sizeof *b);
    b->g = nnfx_graph_new();
    assert_non_null(b->g);
    nnfx_arg a[8];
    b->nin = (int)strlen(args);
    for (int i = 0; i < b->nin; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        b->in[i] = inputs[i];
        if (args[i] == '-') {
            a[i] = nnfx_arg_none();
        } else if (args[i] == 'c') {
            assert_int_equal(nnfx_graph_set_param(b->g, nm, inputs[i], err), NNFX_OK);
            nnfx_node *p = nnfx_graph_get_attr(b->g, nm, err);
            assert_non_null(p);
            a[i] = nnfx_arg_node(p);
        } else {
            nnfx_meta m;
            nnfx_meta_set_shape(&m, inputs[i]->dtype, inputs[i]->rank, inputs[i]->shape);
            nnfx_node *p = nnfx_graph_placeholder(b->g, nm, &m, err);
            assert_non_null(p);
            a[i] = nnfx_arg_node(p);
        }
    }
    b->node = nnfx_graph_call_op(b->g, op, b->nin, a, nattrs, attrs, err);
    if (!b->node) return err->status;
    if (want_nout > 0) assert_int_equal(ir_node_set_num_outputs(b->node, want_nout, err), NNFX_OK);
    nnfx_node *outs[8] = {b->node};
    int nout = nnfx_node_num_outputs(b->node);
    assert_true(nout >= 1 && nout <= 8);
    for (int k = 0; nout > 1 && k < nout; k++)
        assert_non_null(outs[k] = nnfx_graph_getitem(b->g, b->node, k, err));
    assert_non_null(nnfx_graph_output(b->g, nout, outs, err));
    return NNFX_OK;
}

/* Runs one case; prints why and returns false when it fails. */
static bool run_case(const kcase *k) {
    char rel[256], path[1024], msg[1400] = "";
    nnfx_tensor *inputs[8] = {0};
    int nin = (int)strlen(k->args), nout = 0;
    nnfx_value_set vs = {0};
    built b = {0};
    nnfx_error err = {0};
    for (int i = 0; i < nin; i++) {
        if (k->args[i] == '-') continue;
        snprintf(rel, sizeof rel, "kernels/%s.in%d.npy", k->name, i);
        inputs[i] = nnfx_npy_load(tu_data_path(path, sizeof path, rel), &err);
        if (!inputs[i]) {
            snprintf(msg, sizeof msg, "cannot load input: %s", err.msg);
            goto done;
        }
    }
    if (build(&b, k->op, k->args, inputs, num_attrs(k), k->attrs, k->nout, &err)) {
        snprintf(msg, sizeof msg, "building the node failed: %s", err.msg);
        goto done;
    }
    /* static inference must succeed and agree with the run where known */
    if (nnfx_graph_infer_shapes(b.g, &err)) {
        snprintf(msg, sizeof msg, "static inference failed: %s", err.msg);
        goto done;
    }
    if (nnfx_op_run(b.node, nin, inputs, &vs, &err)) {
        snprintf(msg, sizeof msg, "run failed: %s", err.msg);
        goto done;
    }
    for (;; nout++) {
        snprintf(rel, sizeof rel, "kernels/%s.out%d.npy", k->name, nout);
        if (!tu_file_exists(tu_data_path(path, sizeof path, rel))) break;
        if (nout >= vs.num) {
            snprintf(msg, sizeof msg, "%d outputs, the reference has more", vs.num);
            goto done;
        }
        nnfx_tensor *want = nnfx_npy_load(path, &err);
        char why[512];
        if (!want) {
            snprintf(msg, sizeof msg, "cannot load reference: %s", err.msg);
            goto done;
        }
        bool ok = tu_tensor_close(vs.t[nout], want, k->atol, k->rtol, why, sizeof why);
        const nnfx_meta *m = nnfx_node_meta_c(b.node, nout);
        if (!ok) {
            snprintf(msg, sizeof msg, "output %d: %s", nout, why);
        } else if (m->rank >= 0 && (m->rank != want->rank || m->dtype != want->dtype)) {
            snprintf(msg, sizeof msg, "static meta rank %d dtype %s, run gave rank %d %s", m->rank,
                     nnfx_dtype_name(m->dtype), want->rank, nnfx_dtype_name(want->dtype));
        } else {
            for (int d = 0; d < m->rank; d++)
                if (m->dims[d].value >= 0 && m->dims[d].value != want->shape[d]) {
                    snprintf(msg, sizeof msg, "static dim %d is %lld, run gave %lld", d, (long long)m->dims[d].value,
                             (long long)want->shape[d]);
                    break;
                }
        }
        nnfx_tensor_release(want);
        if (msg[0]) goto done;
    }
    if (nout != vs.num) snprintf(msg, sizeof msg, "%d outputs, the reference has %d", vs.num, nout);
done:
    for (int i = 0; i < vs.num; i++)
        nnfx_tensor_release(vs.t[i]);
    for (int i = 0; i < nin; i++)
        nnfx_tensor_release(inputs[i]);
    nnfx_graph_free(b.g);
    if (msg[0]) print_error("case %s (%s): %s\n", k->name, nnfx_op_name(k->op), msg);
    return msg[0] == 0;
}

static void test_reference_cases(void **state) {
    (void)state;
    int failed = 0;
    for (int i = 0; i < NCASES; i++)
        failed += !run_case(&cases[i]);
    if (failed) fail_msg("%d of %d reference cases failed", failed, NCASES);
}

/* Ops whose reference is ONNX's own node tests (tests/node_tests: every
 * case of these ops must pass there, against the onnx package's outputs)
 * rather than a PyTorch case here. */
/* ---- differential: interpreter vs compiled plan (one meaning per op) ------ */

/* Runs case k's one-node graph as a GraphModule (the compiled plan when it
 * takes the graph) at `threads` threads and compares every output with the
 * interpreter kernel's (nnfx_op_run). *compiled says whether the plan ran.
 * Returns false with a message when they disagree. */
static bool differential_case(const kcase *k, int threads, bool *compiled, char *msg, size_t len) {
    char rel[256], path[1024];
    nnfx_tensor *inputs[8] = {0}, *feed[8] = {0}, *outs[8] = {0};
    int nin = (int)strlen(k->args), nfeed = 0, nout = 0;
    nnfx_value_set ref = {0};
    built b = {0};
    nnfx_gm *gm = NULL;
    nnfx_error err = {0};
    msg[0] = 0;
    *compiled = false;
    for (int i = 0; i < nin; i++) {
        if (k->args[i] == '-') continue;
        snprintf(rel, sizeof rel, "kernels/%s.in%d.npy", k->name, i);
        inputs[i] = nnfx_npy_load(tu_data_path(path, sizeof path, rel), &err);
        if (!inputs[i]) {
            snprintf(msg, len, "cannot load input: %s", err.msg);
            goto done;
        }
        if (k->args[i] == 'p') feed[nfeed++] = inputs[i];
    }
    if (build(&b, k->op, k->args, inputs, num_attrs(k), k->attrs, k->nout, &err) ||
        nnfx_graph_infer_shapes(b.g, &err) || nnfx_op_run(b.node, nin, inputs, &ref, &err)) {
        snprintf(msg, len, "reference run failed: %s", err.msg);
        goto done;
    }
    nnfx_graph *copy = nnfx_graph_copy(b.g, NULL, &err);
    gm = copy ? nnfx_gm_new(copy, &err) : NULL;
    if (!gm) {
        snprintf(msg, len, "GraphModule: %s", err.msg);
        goto done;
    }
    nnfx_gm_set_threads(gm, threads);
    if (nnfx_gm_run(gm, nfeed, feed, 8, outs, &nout, &err)) {
        snprintf(msg, len, "GraphModule run (%d threads): %s", threads, err.msg);
        goto done;
    }
    char *plan = nnfx_gm_plan(gm, &err);
    *compiled = plan && strncmp(plan, "# interpreted", 13) != 0;
    /* a multi-output node with static shapes is one step of the plan */
    if (!*compiled && ref.num > 1) snprintf(msg, len, "a multi-output node is not compiled: %s", plan ? plan : "");
    free(plan);
    if (msg[0]) goto done;
    if (nout != ref.num) {
        snprintf(msg, len, "GraphModule gave %d outputs, the interpreter %d", nout, ref.num);
        goto done;
    }
    char why[512];
    for (int o = 0; o < nout && !msg[0]; o++)
        if (!tu_tensor_close(outs[o], ref.t[o], k->atol, k->rtol, why, sizeof why))
            snprintf(msg, len, "%s (%d threads) output %d differs from the interpreter: %s",
                     *compiled ? "compiled plan" : "GraphModule", threads, o, why);
done:
    for (int i = 0; i < nout; i++)
        nnfx_tensor_release(outs[i]);
    for (int i = 0; i < ref.num; i++)
        nnfx_tensor_release(ref.t[i]);
    for (int i = 0; i < nin; i++)
        nnfx_tensor_release(inputs[i]);
    nnfx_gm_free(gm);
    nnfx_graph_free(b.g);
    return msg[0] == 0;
}

/* `test_kernels differential OP`: only the cases of op OP (its nnfx or
 * ONNX name, any case); NULL: every case. */
static const char *only_op;

/* Whether case k is selected by only_op. */
static bool case_selected(const kcase *k) {
    return !only_op || strcasecmp(only_op, nnfx_op_name(k->op)) == 0 ||
           strcasecmp(only_op, nnfx_op_onnx_type(k->op)) == 0;
}

/* Every row of the kernel table (or those of one op, only_op) through the
 * interpreter and as a one-node GraphModule at 1 and 2 threads, on the
 * vector path this process takes (CTest runs it again with
 * NNFX_ISA=portable for the portable kernels). */
static void test_differential(void **state) {
    (void)state;
    int failed = 0, compiled_cases = 0, selected = 0, nops = 0;
    bool seen[NNFX_OP_COUNT] = {0};
    for (int i = 0; i < NCASES; i++) {
        if (!case_selected(&cases[i])) continue;
        selected++;
        if (!seen[cases[i].op]) seen[cases[i].op] = true, nops++;
        for (int threads = 1; threads <= 2; threads++) {
            char msg[1400];
            bool compiled = false;
            if (!differential_case(&cases[i], threads, &compiled, msg, sizeof msg)) {
                print_error("differential %s (%s): %s\n", cases[i].name, nnfx_op_name(cases[i].op), msg);
                failed++;
            }
            if (threads == 1) compiled_cases += compiled;
        }
    }
    const char *isa = getenv("NNFX_ISA");
    print_message("differential: %d cases of %d ops, %d ran as a compiled plan, ISA %s\n", selected, nops,
                  compiled_cases, isa ? isa : "default");
    if (only_op && !selected) fail_msg("no case of op '%s' in the kernel table", only_op);
    assert_int_equal(failed, 0);
    /* the plan must take the table's element-wise, conv, pool and gemm rows */
    if (!only_op) assert_true(compiled_cases >= NCASES / 3);
}

static bool covered_by_node_tests(nnfx_op op) {
    static const nnfx_op ops[] = {NNFX_OP_ACOS,
                                  NNFX_OP_ACOSH,
                                  NNFX_OP_ASIN,
                                  NNFX_OP_ASINH,
                                  NNFX_OP_ATAN,
                                  NNFX_OP_ATANH,
                                  NNFX_OP_COS,
                                  NNFX_OP_COSH,
                                  NNFX_OP_SIN,
                                  NNFX_OP_SINH,
                                  NNFX_OP_TAN,
                                  NNFX_OP_CEIL,
                                  NNFX_OP_FLOOR,
                                  NNFX_OP_ROUND,
                                  NNFX_OP_SIGN,
                                  NNFX_OP_SOFTPLUS,
                                  NNFX_OP_SOFTSIGN,
                                  NNFX_OP_SELU,
                                  NNFX_OP_CELU,
                                  NNFX_OP_THRESHOLDED_RELU,
                                  NNFX_OP_SHRINK,
                                  NNFX_OP_IS_NAN,
                                  NNFX_OP_IS_INF,
                                  NNFX_OP_NOT,
                                  NNFX_OP_AND,
                                  NNFX_OP_OR,
                                  NNFX_OP_XOR,
                                  NNFX_OP_GREATER_OR_EQUAL,
                                  NNFX_OP_LESS_OR_EQUAL,
                                  NNFX_OP_MOD,
                                  NNFX_OP_MIN,
                                  NNFX_OP_MAX,
                                  NNFX_OP_SUM,
                                  NNFX_OP_MEAN,
                                  NNFX_OP_REDUCE_MIN,
                                  NNFX_OP_REDUCE_PROD,
                                  NNFX_OP_REDUCE_L1,
                                  NNFX_OP_REDUCE_L2,
                                  NNFX_OP_REDUCE_LOG_SUM,
                                  NNFX_OP_REDUCE_LOG_SUM_EXP,
                                  NNFX_OP_REDUCE_SUM_SQUARE,
                                  NNFX_OP_ARGMIN,
                                  NNFX_OP_SIZE,
                                  NNFX_OP_GATHER_ELEMENTS,
                                  NNFX_OP_TRILU,
                                  NNFX_OP_CUM_SUM,
                                  NNFX_OP_HARDMAX,
                                  NNFX_OP_NLL_LOSS,
                                  NNFX_OP_SCE_LOSS,
                                  NNFX_OP_CAST_LIKE,
                                  NNFX_OP_BIT_SHIFT,
                                  NNFX_OP_EYE_LIKE,
                                  NNFX_OP_DEPTH_TO_SPACE,
                                  NNFX_OP_SPACE_TO_DEPTH,
                                  NNFX_OP_INSTANCE_NORM,
                                  NNFX_OP_LRN,
                                  NNFX_OP_MVN,
                                  NNFX_OP_HANN_WINDOW,
                                  NNFX_OP_HAMMING_WINDOW,
                                  NNFX_OP_BLACKMAN_WINDOW,
                                  NNFX_OP_DET,
                                  NNFX_OP_REVERSE_SEQUENCE,
                                  NNFX_OP_ONE_HOT,
                                  NNFX_OP_GATHER_ND,
                                  NNFX_OP_SCATTER_ND,
                                  NNFX_OP_SCATTER_ELEMENTS,
                                  NNFX_OP_SCATTER,
                                  NNFX_OP_TOPK,
                                  NNFX_OP_NON_ZERO,
                                  NNFX_OP_COMPRESS,
                                  NNFX_OP_UNIQUE,
                                  NNFX_OP_CONV_TRANSPOSE,
                                  NNFX_OP_RNN,
                                  NNFX_OP_GRU,
                                  NNFX_OP_LSTM,
                                  NNFX_OP_EINSUM,
                                  NNFX_OP_NMS,
                                  NNFX_OP_GRID_SAMPLE,
                                  NNFX_OP_ROI_ALIGN,
                                  NNFX_OP_MAX_UNPOOL,
                                  NNFX_OP_DFT,
                                  NNFX_OP_STFT};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] == op) return true;
    return false;
}

/* Every op in the table has its three functions and at least one case
 * (except constant-like ops, tested below). */
static void test_every_op_covered(void **state) {
    (void)state;
    for (int op = 1; op < NNFX_OP_COUNT; op++) {
        const nnfx_op_info *info = ir_op_info((nnfx_op)op);
        assert_non_null(info->infer);
        assert_non_null(info->kernel);
        assert_non_null(info->cost);
        if (op == NNFX_OP_CONSTANT || op == NNFX_OP_CONSTANT_OF_SHAPE || op == NNFX_OP_GETITEM) continue;
        if (covered_by_node_tests((nnfx_op)op)) continue;
        /* Control flow: node tests test_if, test_loop11, test_scan9_sum and test_control_flow.c */
        if (op == NNFX_OP_IF || op == NNFX_OP_LOOP || op == NNFX_OP_SCAN) continue;
        /* Quantization (int8): every op of the block has ONNX node tests */
        if (op >= NNFX_OP_QUANTIZE_LINEAR && op <= NNFX_OP_MATMUL_INTEGER) continue;
        bool found = false;
        for (int i = 0; i < NCASES && !found; i++)
            found = cases[i].op == (nnfx_op)op;
        if (!found) fail_msg("op %s has no reference case", nnfx_op_name((nnfx_op)op));
    }
}

/* ---- harness coverage: which ops of ops.def have a case in it ------------ */

/* Ops without a kernel-table case, each with why. The coverage mode
 * (`test_kernels coverage`, ctest kernels_harness_coverage) fails when an op
 * has neither a case nor an entry here, and when an entry names an op that
 * has a case (so the list only shrinks). Every entry with an ONNX type is
 * run instead from ONNX's node tests (ONNX's reference outputs) through the
 * interpreter and the compiled plan at 1 and 2 threads: `test_kernels
 * uncovered_ops` prints them for ctest onnx_node_engines_each_op, which
 * fails when one of them has no passing node-test case. */
typedef struct uncovered_op {
    nnfx_op op;
    const char *why;
} uncovered_op;

/* The reasons, one per group of entries below. "Node tests" means the
 * harness's second source of cases: ONNX's node tests of the op, each run
 * in the interpreter, the compiled plan at 1 and 2 threads and (one a op)
 * as generated C, against ONNX's reference outputs. */
#define WHY_NODE  "no kernel-table case yet: in the harness by its ONNX node tests"
#define WHY_GRAPH "takes a subgraph, which the one-node builder cannot give: in the harness by its ONNX node tests"
#define WHY_ITEM  "nnfx-internal (no ONNX type): every multi-output case runs it through every engine"

/* clang-format off */
static const uncovered_op uncovered[] = {
    {NNFX_OP_GETITEM, WHY_ITEM},
    {NNFX_OP_IF, WHY_GRAPH},
    {NNFX_OP_LOOP, WHY_GRAPH},
    {NNFX_OP_SCAN, WHY_GRAPH},
};
/* clang-format on */

/* Lists every op of ops.def with its number of kernel-table cases or why it
 * has none; fails for an op with neither, or an entry for an op with a case. */
static void test_harness_coverage(void **state) {
    (void)state;
    int ncase[NNFX_OP_COUNT] = {0}, covered = 0, listed = 0, bad = 0, total = 0, node_listed = 0;
    for (int i = 0; i < NCASES; i++)
        ncase[cases[i].op]++;
    for (int op = 1; op < NNFX_OP_COUNT; op++) {
        const char *why = NULL;
        int entries = 0;
        for (size_t u = 0; u < sizeof uncovered / sizeof uncovered[0]; u++)
            if (uncovered[u].op == (nnfx_op)op) why = uncovered[u].why, entries++;
        total++;
        if (ncase[op] && why) {
            print_error("op %s has %d cases but is still in the uncovered list: remove it\n", nnfx_op_name((nnfx_op)op),
                        ncase[op]);
            bad++;
        } else if (ncase[op]) {
            covered++;
            print_message("  %-24s %d cases\n", nnfx_op_name((nnfx_op)op), ncase[op]);
        } else if (why && entries == 1) {
            listed++;
            node_listed += nnfx_op_onnx_type((nnfx_op)op)[0] != 0;
            print_message("  %-24s none: %s\n", nnfx_op_name((nnfx_op)op), why);
        } else {
            print_error("op %s has no kernel-table case and no entry (%d) in the uncovered list\n",
                        nnfx_op_name((nnfx_op)op), entries);
            bad++;
        }
    }
    print_message("harness coverage: %d of %d ops have a kernel-table case; %d listed without one (%d of them run "
                  "from ONNX's node tests: ctest onnx_node_engines_each_op)\n",
                  covered, total, listed, node_listed);
    assert_int_equal(bad, 0);
}

/* ---- bad input ---------------------------------------------------------- */

static nnfx_tensor *zeros(nnfx_dtype dt, int rank, ...) {
    int64_t shape[NNFX_MAX_RANK];
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        shape[i] = va_arg(ap, int64_t);
    va_end(ap);
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, shape, NULL);
    assert_non_null(t);
    return t;
}

/* Builds op over inputs (all placeholders) and returns the status of
 * static inference followed (when it passes) by a run. */
static nnfx_status try_op(nnfx_op op, const char *args, nnfx_tensor *const *in, int nattrs, const nnfx_attr *attrs,
                          nnfx_error *err, const char *name) {
    built b;
    nnfx_status s = build(&b, op, args, in, nattrs, attrs, 0, err);
    if (!s && name) assert_int_equal(nnfx_node_set_name(b.node, name, err), NNFX_OK);
    if (!s) s = nnfx_graph_infer_shapes(b.g, err);
    if (!s) {
        nnfx_value_set vs;
        s = nnfx_op_run(b.node, b.nin, in, &vs, err);
        if (!s)
            for (int i = 0; i < vs.num; i++)
                nnfx_tensor_release(vs.t[i]);
    }
    nnfx_graph_free(b.g);
    return s;
}

static void release_all(nnfx_tensor **t, int n) {
    for (int i = 0; i < n; i++)
        nnfx_tensor_release(t[i]);
}

static void test_bad_shapes(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_status s;
    { /* the seed's SimpleNet: flattened 16x30x30 map into Linear(16, 10) */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 2, 1, 14400), zeros(NNFX_F32, 2, 10, 16), zeros(NNFX_F32, 1, 10)};
        nnfx_attr at[1] = {AI("transB", 1)};
        s = try_op(NNFX_OP_GEMM, "pcc", in, 1, at, &err, "linear");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE,
                        "node linear: gemm expects input dim 1 (14400) to equal weight dim 1 (16)", NULL);
        release_all(in, 3);
    }
    { /* conv channel mismatch */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 4, 1, 3, 8, 8), zeros(NNFX_F32, 4, 4, 2, 3, 3)};
        s = try_op(NNFX_OP_CONV, "pc", in, 0, NULL, &err, "conv1");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "conv1", "input channels (3)", NULL);
        release_all(in, 2);
    }
    { /* conv on a rank-2 input */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 3, 8), zeros(NNFX_F32, 2, 4, 3)};
        s = try_op(NNFX_OP_CONV, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "rank >= 3", NULL);
        release_all(in, 2);
    }
    { /* kernel bigger than the input */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 4, 1, 1, 2, 2), zeros(NNFX_F32, 4, 1, 1, 3, 3)};
        s = try_op(NNFX_OP_CONV, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "does not fit", NULL);
        release_all(in, 2);
    }
    { /* matmul inner dims */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 3, 4), zeros(NNFX_F32, 2, 5, 6)};
        s = try_op(NNFX_OP_MATMUL, "pp", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "matmul", "(4)", "(5)", NULL);
        release_all(in, 2);
    }
    { /* broadcasting */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 3, 4), zeros(NNFX_F32, 2, 3, 5)};
        s = try_op(NNFX_OP_ADD, "pp", in, 0, NULL, &err, "add");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node add", "cannot broadcast", "[3, 4]", "[3, 5]", NULL);
        release_all(in, 2);
    }
    { /* concat dims */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 3, 4), zeros(NNFX_F32, 2, 2, 5)};
        nnfx_attr at[1] = {AI("axis", 0)};
        s = try_op(NNFX_OP_CONCAT, "pp", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "concat", "dim 1", NULL);
        release_all(in, 2);
    }
    { /* reshape element count */
        int64_t sh[2] = {5, -1};
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 3, 4), nnfx_tensor_new(NNFX_I64, 1, (int64_t[]){2}, NULL)};
        memcpy(in[1]->data, sh, sizeof sh);
        s = try_op(NNFX_OP_RESHAPE, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "cannot reshape", "12 elements", NULL);
        release_all(in, 2);
    }
    { /* pool on the wrong rank, and without kernel_shape */
        nnfx_tensor *in[1] = {zeros(NNFX_F32, 2, 3, 4)};
        nnfx_attr at[1] = {AINTS("kernel_shape", 2, 2)};
        s = try_op(NNFX_OP_MAX_POOL, "p", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "rank 4", NULL);
        s = try_op(NNFX_OP_AVERAGE_POOL, "p", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "kernel_shape", NULL);
        release_all(in, 1);
    }
    { /* batchnorm parameter length */
        nnfx_tensor *in[5] = {zeros(NNFX_F32, 4, 1, 3, 2, 2), zeros(NNFX_F32, 1, 3), zeros(NNFX_F32, 1, 4),
                              zeros(NNFX_F32, 1, 3), zeros(NNFX_F32, 1, 3)};
        s = try_op(NNFX_OP_BATCH_NORM, "pcccc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "B of shape [3]", NULL);
        release_all(in, 5);
    }
    { /* slice step 0 */
        nnfx_tensor *in[5] = {zeros(NNFX_F32, 1, 5), zeros(NNFX_I64, 1, 1), zeros(NNFX_I64, 1, 1),
                              zeros(NNFX_I64, 1, 1), zeros(NNFX_I64, 1, 1)};
        s = try_op(NNFX_OP_SLICE, "pcccc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "step", NULL);
        release_all(in, 5);
    }
    { /* gather index out of range: a run-time error */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 1, 3), nnfx_tensor_scalar_i64(7, NULL)};
        s = try_op(NNFX_OP_GATHER, "pp", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "index 7 out of range", NULL);
        release_all(in, 2);
    }
    { /* transpose with a bad perm */
        nnfx_tensor *in[1] = {zeros(NNFX_F32, 2, 3, 4)};
        nnfx_attr at[1] = {AINTS("perm", 0, 0)};
        s = try_op(NNFX_OP_TRANSPOSE, "p", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "permutation", NULL);
        release_all(in, 1);
    }
    { /* unsupported dtype reaches the kernel: a status, not a crash */
        nnfx_tensor *in[1] = {zeros(NNFX_I32, 1, 3)};
        s = try_op(NNFX_OP_SIGMOID, "p", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_UNSUPPORTED, "int32", NULL);
        release_all(in, 1);
    }
    { /* resize tf_crop_and_resize with scales (not sizes) is unsupported */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 2, 2, 2), zeros(NNFX_F32, 1, 0),
                              nnfx_tensor_from_floats(1, (int64_t[]){2}, (float[]){2, 2}, NULL)};
        nnfx_attr at[1] = {AS("coordinate_transformation_mode", "tf_crop_and_resize")};
        s = try_op(NNFX_OP_RESIZE, "pcc", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_UNSUPPORTED, "tf_crop_and_resize", NULL);
        release_all(in, 3);
    }
    { /* resize with an unknown mode is unsupported */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 2, 2, 2), zeros(NNFX_F32, 1, 0),
                              nnfx_tensor_from_floats(1, (int64_t[]){2}, (float[]){2, 2}, NULL)};
        nnfx_attr at[1] = {AS("mode", "area")};
        s = try_op(NNFX_OP_RESIZE, "pcc", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_UNSUPPORTED, "area", NULL);
        release_all(in, 3);
    }
}

/* Kernels called directly with mismatched buffers fail cleanly. */
static void test_kernel_direct_misuse(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_tensor *a = zeros(NNFX_F32, 2, 3, 4), *b = zeros(NNFX_F32, 2, 3, 5), *o = zeros(NNFX_F32, 2, 3, 4);
    nnfx_tensor *ins[2] = {a, b}, *outs[1] = {o};
    nnfx_status s = ir_op_info(NNFX_OP_ADD)->kernel(NULL, 2, ins, 1, outs, &err);
    tu_assert_error(&err, s, NNFX_ERR_SHAPE, "broadcast", NULL);
    s = ir_op_info(NNFX_OP_GETITEM)->kernel(NULL, 2, ins, 1, outs, &err);
    tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "getitem", NULL);
    nnfx_tensor *x = zeros(NNFX_F32, 4, 1, 3, 4, 4), *w = zeros(NNFX_F32, 4, 2, 3, 3, 3),
                *y = zeros(NNFX_F32, 4, 1, 2, 9, 9);
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 4, x->shape);
    nnfx_arg args[2] = {nnfx_arg_node(nnfx_graph_placeholder(g, "x", &m, &err)),
                        nnfx_arg_node(nnfx_graph_placeholder(g, "w", &m, &err))};
    nnfx_node *conv = nnfx_graph_call_op(g, NNFX_OP_CONV, 2, args, 0, NULL, &err);
    assert_non_null(conv);
    nnfx_tensor *cin[2] = {x, w}, *cout[1] = {y};
    s = ir_op_info(NNFX_OP_CONV)->kernel(conv, 2, cin, 1, cout, &err);
    tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "output buffer", "[1, 2, 9, 9]", "[1, 2, 2, 2]", NULL);
    nnfx_graph_free(g);
    nnfx_tensor_release(a), nnfx_tensor_release(b), nnfx_tensor_release(o);
    nnfx_tensor_release(x), nnfx_tensor_release(w), nnfx_tensor_release(y);
}

/* ---- symbolic dims and costs ------------------------------------------- */

static void test_symbolic_and_cost(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m = {0};
    m.dtype = NNFX_F32;
    m.rank = 4;
    m.dims[0].value = -1;
    m.dims[0].symbol = nnfx_symbol("batch");
    m.dims[1].value = 3, m.dims[2].value = 32, m.dims[3].value = 32;
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_tensor *w = zeros(NNFX_F32, 4, 16, 3, 3, 3), *bias = zeros(NNFX_F32, 1, 16);
    assert_int_equal(nnfx_graph_set_param(g, "w", w, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "b", bias, &err), NNFX_OK);
    nnfx_arg ca[3] = {nnfx_arg_node(x), nnfx_arg_node(nnfx_graph_get_attr(g, "w", &err)),
                      nnfx_arg_node(nnfx_graph_get_attr(g, "b", &err))};
    nnfx_attr pads = AINTS("pads", 1, 1, 1, 1);
    nnfx_node *conv = nnfx_graph_call_op(g, NNFX_OP_CONV, 3, ca, 1, &pads, &err);
    assert_non_null(conv);
    nnfx_arg fa[1] = {nnfx_arg_node(conv)};
    nnfx_node *flat = nnfx_graph_call_op(g, NNFX_OP_FLATTEN, 1, fa, 0, NULL, &err);
    assert_non_null(flat);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    const nnfx_meta *cm = nnfx_node_meta_c(conv, 0), *fm = nnfx_node_meta_c(flat, 0);
    assert_int_equal(cm->rank, 4);
    assert_string_equal(cm->dims[0].symbol, "batch");
    assert_int_equal(cm->dims[1].value, 16);
    assert_int_equal(cm->dims[2].value, 32);
    assert_int_equal(fm->rank, 2);
    assert_string_equal(fm->dims[0].symbol, "batch");
    assert_int_equal(fm->dims[1].value, 16 * 32 * 32);
    /* cost from the inferred metas (unknown batch counts as 1) */
    const nnfx_meta *ins[3] = {&m, nnfx_node_meta_c(nnfx_node_arg_node(conv, 1), 0),
                               nnfx_node_meta_c(nnfx_node_arg_node(conv, 2), 0)};
    nnfx_meta outm = *cm;
    nnfx_infer_ctx c = {conv, 3, ins, NULL, 1, &outm, &err};
    int64_t macs = 0, flops = 0;
    ir_op_info(NNFX_OP_CONV)->cost(&c, &macs, &flops);
    assert_int_equal(macs, (int64_t)16 * 32 * 32 * 3 * 3 * 3);
    assert_int_equal(flops, 2 * macs + 16 * 32 * 32);
    nnfx_graph_free(g);
    nnfx_tensor_release(w);
    nnfx_tensor_release(bias);
}

/* Unknown dims propagate; dims a reshape copies cancel out. */
static void test_unknown_dims(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m = {0};
    m.dtype = NNFX_F32;
    m.rank = 3;
    m.dims[0].value = -1;
    m.dims[0].symbol = nnfx_symbol("N");
    m.dims[1].value = 3, m.dims[2].value = 4;
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_tensor *shape = zeros(NNFX_I64, 1, 2);
    ((int64_t *)shape->data)[0] = 0, ((int64_t *)shape->data)[1] = -1;
    assert_int_equal(nnfx_graph_set_param(g, "shape", shape, &err), NNFX_OK);
    nnfx_arg ra[2] = {nnfx_arg_node(x), nnfx_arg_node(nnfx_graph_get_attr(g, "shape", &err))};
    nnfx_node *rs = nnfx_graph_call_op(g, NNFX_OP_RESHAPE, 2, ra, 0, NULL, &err);
    nnfx_arg ta[1] = {nnfx_arg_node(x)};
    nnfx_attr perm = AINTS("perm", 2, 0, 1);
    nnfx_node *tr = nnfx_graph_call_op(g, NNFX_OP_TRANSPOSE, 1, ta, 1, &perm, &err);
    nnfx_arg ma[2] = {nnfx_arg_node(x), nnfx_arg_node(x)};
    nnfx_node *mul = nnfx_graph_call_op(g, NNFX_OP_MUL, 2, ma, 0, NULL, &err);
    assert_non_null(rs), assert_non_null(tr), assert_non_null(mul);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    const nnfx_meta *r = nnfx_node_meta_c(rs, 0), *t = nnfx_node_meta_c(tr, 0), *mm = nnfx_node_meta_c(mul, 0);
    assert_int_equal(r->rank, 2);
    assert_string_equal(r->dims[0].symbol, "N");
    assert_int_equal(r->dims[1].value, 12);
    assert_int_equal(t->dims[0].value, 4);
    assert_string_equal(t->dims[1].symbol, "N");
    assert_int_equal(mm->dims[0].value, -1);
    assert_string_equal(mm->dims[0].symbol, "N");
    /* a softmax axis out of range is a static error naming the node */
    nnfx_attr ax = AI("axis", 3);
    nnfx_node *sm = nnfx_graph_call_op(g, NNFX_OP_SOFTMAX, 1, ta, 1, &ax, &err);
    assert_non_null(sm);
    nnfx_status s = nnfx_graph_infer_shapes(g, &err);
    tu_assert_error(&err, s, NNFX_ERR_SHAPE, nnfx_node_name(sm), "axis 3 out of range", NULL);
    nnfx_tensor_release(shape);
    nnfx_graph_free(g);
}

static void test_constants(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    float vals[3] = {1.5f, -2.0f, 3.25f};
    nnfx_attr a = nnfx_attr_floats("value_floats", 3, vals);
    nnfx_node *k = nnfx_graph_call_op(g, NNFX_OP_CONSTANT, 0, NULL, 1, &a, &err);
    assert_non_null(k);
    nnfx_value_set vs;
    assert_int_equal(nnfx_op_run(k, 0, NULL, &vs, &err), NNFX_OK);
    assert_int_equal(vs.t[0]->rank, 1);
    assert_true(((float *)vs.t[0]->data)[2] == 3.25f);
    nnfx_tensor_release(vs.t[0]);
    /* constant_of_shape with an int64 value */
    nnfx_tensor *v = nnfx_tensor_scalar_i64(7, NULL), *shape = zeros(NNFX_I64, 1, 2);
    ((int64_t *)shape->data)[0] = 2, ((int64_t *)shape->data)[1] = 3;
    nnfx_attr va = nnfx_attr_tensor("value", v);
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_I64, 1, shape->shape);
    nnfx_arg sa[1] = {nnfx_arg_node(nnfx_graph_placeholder(g, "s", &m, &err))};
    nnfx_node *cs = nnfx_graph_call_op(g, NNFX_OP_CONSTANT_OF_SHAPE, 1, sa, 1, &va, &err);
    assert_non_null(cs);
    assert_int_equal(nnfx_op_run(cs, 1, &shape, &vs, &err), NNFX_OK);
    assert_int_equal(vs.t[0]->dtype, NNFX_I64);
    assert_int_equal(nnfx_tensor_numel(vs.t[0]), 6);
    assert_int_equal(((int64_t *)vs.t[0]->data)[5], 7);
    nnfx_tensor_release(vs.t[0]);
    nnfx_tensor_release(v);
    nnfx_tensor_release(shape);
    nnfx_graph_free(g);
}

/* ---- .npy I/O ------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_npy(void **state) {
    (void)state;
    nnfx_error err = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/test_kernels_rt.npy", NNFX_BINARY_DIR);
    nnfx_tensor *t = zeros(NNFX_F32, 3, 2, 3, 4);
    nnfx_tensor_fill_uniform(t, 7, -1, 1);
    assert_int_equal(nnfx_npy_save(path, t, &err), NNFX_OK);
    nnfx_tensor *back = nnfx_npy_load(path, &err);
    assert_non_null(back);
    tu_assert_close(back, t, 0, 0, "npy round trip");
    nnfx_tensor_release(back);
    /* scalars and int64 */
    nnfx_tensor *s = nnfx_tensor_scalar_i64(-5, NULL);
    assert_int_equal(nnfx_npy_save(path, s, &err), NNFX_OK);
    back = nnfx_npy_load(path, &err);
    assert_non_null(back);
    assert_int_equal(back->rank, 0);
    assert_int_equal(((int64_t *)back->data)[0], -5);
    nnfx_tensor_release(back);
    nnfx_tensor_release(s);
    /* missing file */
    assert_null(nnfx_npy_load("/nonexistent/dir/x.npy", &err));
    assert_int_equal(err.status, NNFX_ERR_IO);
    /* bad magic */
    write_file(path, "hello world, not numpy", 22);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_PARSE, "magic", NULL);
    /* truncated data: header says 24 floats, file has fewer bytes */
    assert_int_equal(nnfx_npy_save(path, t, &err), NNFX_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[512];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_file(path, buf, n - 8);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_PARSE, "[2, 3, 4]", "96 data bytes", NULL);
    /* unsupported dtype and Fortran order */
    const char hdr_be[] = "\x93NUMPY\x01\x00\x36\x00{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }    \n";
    write_file(path, hdr_be, sizeof hdr_be - 1);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_UNSUPPORTED, ">f4", NULL);
    const char hdr_f[] = "\x93NUMPY\x01\x00\x36\x00{'descr': '<f4', 'fortran_order': True,  'shape': (0,), }    \n";
    write_file(path, hdr_f, sizeof hdr_f - 1);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_UNSUPPORTED, "Fortran", NULL);
    const char hdr_bad[] = "\x93NUMPY\x01\x00\x36\x00{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }    \n";
    write_file(path, hdr_bad, sizeof hdr_bad - 1);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_PARSE, "shape", NULL);
    /* header length past the end of the file */
    const char hdr_long[] = "\x93NUMPY\x01\x00\xff\x7f{'descr'";
    write_file(path, hdr_long, sizeof hdr_long - 1);
    assert_null(nnfx_npy_load(path, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_PARSE, "header length", NULL);
    remove(path);
    nnfx_tensor_release(t);
}

/* float16 writer: every finite half survives half -> double -> half, and a
 * value halfway between two neighbours rounds to the even one. */
static void test_half_rounding(void **state) {
    (void)state;
    for (unsigned h = 0; h < 0x10000u; h++) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue; /* NaN */
        assert_int_equal(core_double_to_half(core_half_to_float((uint16_t)h)), h);
    }
    for (unsigned h = 0; h < 0x7bffu; h++) { /* positive finite, not the last */
        double lo = core_half_to_float((uint16_t)h), hi = core_half_to_float((uint16_t)(h + 1));
        unsigned even = (h & 1u) ? h + 1 : h;
        assert_int_equal(core_double_to_half((lo + hi) / 2), even);
        assert_int_equal(core_double_to_half(-(lo + hi) / 2), even | 0x8000u);
        assert_int_equal(core_double_to_half(lo + (hi - lo) * 0.25), h);
        assert_int_equal(core_double_to_half(lo + (hi - lo) * 0.75), h + 1);
    }
    assert_int_equal(core_double_to_half(65519.0), 0x7bffu);
    assert_int_equal(core_double_to_half(65520.0), 0x7c00u);
    assert_int_equal(core_double_to_half(-1e300), 0xfc00u);
    assert_int_equal(core_double_to_half(1e-300), 0);
    assert_int_equal(core_double_to_half(NAN) & 0x7e00u, 0x7e00u);
}

/* Bad input to the coverage ops: a clear error naming the node, no crash
 * (the suite also runs under ASan and UBSan). */
static nnfx_tensor *ints64(int n, const int64_t *v) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, (int64_t[]){n}, NULL);
    assert_non_null(t);
    memcpy(t->data, v, sizeof *v * (size_t)n);
    return t;
}

static void test_bad_coverage_ops(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_status s;
    { /* conv_transpose: input channels differ from the weight's dim 0 */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 4, 1, 3, 4, 4), zeros(NNFX_F32, 4, 2, 4, 3, 3)};
        s = try_op(NNFX_OP_CONV_TRANSPOSE, "pc", in, 0, NULL, &err, "up");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node up", "input channels 3", NULL);
        release_all(in, 2);
    }
    { /* conv_transpose: output_shape with the wrong number of dims */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 4, 1, 2, 4, 4), zeros(NNFX_F32, 4, 2, 4, 3, 3)};
        nnfx_attr at[1] = {AINTS("output_shape", 9, 9, 9)};
        s = try_op(NNFX_OP_CONV_TRANSPOSE, "pc", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "output_shape has 3 values", NULL);
        release_all(in, 2);
    }
    { /* 3-d conv whose kernel does not fit */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 5, 1, 1, 2, 4, 4), zeros(NNFX_F32, 5, 1, 1, 3, 3, 3)};
        s = try_op(NNFX_OP_CONV, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "does not fit", NULL);
        release_all(in, 2);
    }
    { /* einsum: a term for an input that is not there, and a size clash */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 2, 3), zeros(NNFX_F32, 2, 4, 5)};
        nnfx_attr at[1] = {AS("equation", "ij,jk,kl->il")};
        s = try_op(NNFX_OP_EINSUM, "pp", in, 1, at, &err, "es");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node es", "more terms", NULL);
        nnfx_attr at2[1] = {AS("equation", "ij,jk->ik")};
        s = try_op(NNFX_OP_EINSUM, "pp", in, 1, at2, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "label 'j' has sizes 3 and 4", NULL);
        nnfx_attr at3[1] = {AS("equation", "ij,kl->iz")};
        s = try_op(NNFX_OP_EINSUM, "pp", in, 1, at3, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "output label 'z' is in no input", NULL);
        release_all(in, 2);
    }
    { /* lstm: W's gate rows do not match R's hidden size */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 3, 5, 2, 4), zeros(NNFX_F32, 3, 1, 12, 4), zeros(NNFX_F32, 3, 1, 12, 2)};
        s = try_op(NNFX_OP_LSTM, "pcc", in, 0, NULL, &err, "lstm");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node lstm", NULL);
        release_all(in, 3);
    }
    { /* gru: an unknown direction */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 3, 5, 2, 4), zeros(NNFX_F32, 3, 1, 9, 4), zeros(NNFX_F32, 3, 1, 9, 3)};
        nnfx_attr at[1] = {AS("direction", "sideways")};
        s = try_op(NNFX_OP_GRU, "pcc", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "sideways", NULL);
        release_all(in, 3);
    }
    { /* topk: K larger than the axis, then negative */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 2, 2, 3), ints64(1, (int64_t[]){4})};
        s = try_op(NNFX_OP_TOPK, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "exceeds the axis size 3", NULL);
        ((int64_t *)in[1]->data)[0] = -1;
        s = try_op(NNFX_OP_TOPK, "pc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "negative", NULL);
        release_all(in, 2);
    }
    { /* gather_nd and scatter_nd: an index out of range is a run-time error */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 2, 2, 3), ints64(2, (int64_t[]){1, 7}), zeros(NNFX_F32, 1, 1)};
        nnfx_tensor *ix = nnfx_tensor_new(NNFX_I64, 2, (int64_t[]){1, 2}, NULL);
        memcpy(ix->data, (int64_t[]){1, 7}, 2 * sizeof(int64_t));
        nnfx_tensor *gin[2] = {in[0], ix};
        s = try_op(NNFX_OP_GATHER_ND, "pp", gin, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "index 7 out of range", NULL);
        nnfx_tensor *sin[3] = {in[0], ix, in[2]};
        s = try_op(NNFX_OP_SCATTER_ND, "ppp", sin, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "index 7 out of range", NULL);
        nnfx_tensor *sc = nnfx_tensor_scalar_i64(0, NULL);
        nnfx_tensor *g0[2] = {in[0], sc};
        s = try_op(NNFX_OP_GATHER_ND, "pp", g0, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "rank >= 1", NULL);
        nnfx_tensor_release(sc);
        nnfx_tensor_release(ix);
        release_all(in, 3);
    }
    { /* one_hot: a depth that is not a positive count */
        nnfx_tensor *in[3] = {zeros(NNFX_I64, 1, 3), nnfx_tensor_scalar_f32(NAN, NULL), zeros(NNFX_F32, 1, 2)};
        s = try_op(NNFX_OP_ONE_HOT, "pcc", in, 0, NULL, &err, "oh");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node oh", "depth", NULL);
        release_all(in, 3);
    }
    { /* losses: a target class out of range; a weight of the wrong length */
        nnfx_tensor *in[3] = {zeros(NNFX_F32, 2, 2, 3), ints64(2, (int64_t[]){1, 3}), zeros(NNFX_F32, 1, 4)};
        s = try_op(NNFX_OP_NLL_LOSS, "pp", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_RUNTIME, "target 3 out of range", NULL);
        s = try_op(NNFX_OP_SCE_LOSS, "ppc", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "4 values for 3 classes", NULL);
        release_all(in, 3);
    }
    { /* non_max_suppression: boxes and scores that do not fit */
        nnfx_tensor *in[2] = {zeros(NNFX_F32, 3, 1, 5, 4), zeros(NNFX_F32, 3, 1, 1, 6)};
        s = try_op(NNFX_OP_NMS, "pp", in, 0, NULL, &err, "nms");
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "node nms", "do not fit", NULL);
        release_all(in, 2);
    }
    { /* depth_to_space: channels not divisible by blocksize^2 */
        nnfx_tensor *in[1] = {zeros(NNFX_F32, 4, 1, 3, 2, 2)};
        nnfx_attr at[1] = {AI("blocksize", 2)};
        s = try_op(NNFX_OP_DEPTH_TO_SPACE, "p", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "not divisible", NULL);
        release_all(in, 1);
    }
    { /* bit_shift of signed integers */
        nnfx_tensor *in[2] = {zeros(NNFX_I32, 1, 2), zeros(NNFX_I32, 1, 2)};
        nnfx_attr at[1] = {AS("direction", "LEFT")};
        s = try_op(NNFX_OP_BIT_SHIFT, "pp", in, 1, at, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_UNSUPPORTED, "unsigned", NULL);
        release_all(in, 2);
    }
    { /* stft: frame_step 0 */
        nnfx_tensor *in[4] = {zeros(NNFX_F32, 3, 1, 16, 1), ints64(1, (int64_t[]){0}), NULL, ints64(1, (int64_t[]){4})};
        s = try_op(NNFX_OP_STFT, "pc-c", in, 0, NULL, &err, NULL);
        tu_assert_error(&err, s, NNFX_ERR_SHAPE, "frame_step 0", NULL);
        nnfx_tensor_release(in[0]), nnfx_tensor_release(in[1]), nnfx_tensor_release(in[3]);
    }
}

/* ---- differential, generated C: the same cases compiled and run ---------- */

/* Writes text to path; false on failure. */
static bool write_text(const char *path, const char *text) {
    return tu_write_file(path, text ? text : "", text ? strlen(text) : 0) == 0;
}

/* Generates case cases[i]'s one-node graph as C named kc<i> into dir, its
 * placeholder inputs as raw files kc<i>.in<k>.bin, and appends to drv the
 * driver lines that run it and write kc<i>.out<k>.bin. ref gets the
 * interpreter's outputs. Returns 1 generated, 0 not generated (the
 * generator refuses the op: why in msg), -1 on a failure (msg). */
static int codegen_case(int i, const char *dir, FILE *drv, nnfx_value_set *ref, char *msg, size_t len) {
    const kcase *k = &cases[i];
    char rel[256], path[1024], name[32];
    nnfx_tensor *inputs[8] = {0};
    int nin = (int)strlen(k->args), rc = -1;
    built b = {0};
    nnfx_error err = {0};
    nnfx_codegen_files f = {0};
    snprintf(name, sizeof name, "kc%d", i);
    memset(ref, 0, sizeof *ref);
    for (int a = 0; a < nin; a++) {
        if (k->args[a] == '-') continue;
        snprintf(rel, sizeof rel, "kernels/%s.in%d.npy", k->name, a);
        if (!(inputs[a] = nnfx_npy_load(tu_data_path(path, sizeof path, rel), &err))) {
            snprintf(msg, len, "cannot load input: %s", err.msg);
            goto done;
        }
    }
    if (build(&b, k->op, k->args, inputs, num_attrs(k), k->attrs, k->nout, &err) ||
        nnfx_graph_infer_shapes(b.g, &err) || nnfx_op_run(b.node, nin, inputs, ref, &err)) {
        snprintf(msg, len, "reference run failed: %s", err.msg);
        goto done;
    }
    nnfx_codegen_options o = {.name = name};
    if (nnfx_codegen(b.g, &o, &f, &err)) {
        snprintf(msg, len, "%s", err.msg);
        rc = err.status == NNFX_ERR_UNSUPPORTED ? 0 : -1;
        goto done;
    }
    const char *parts[3][2] = {{".h", f.header}, {".c", f.source}, {"_weights.c", f.weights}};
    for (int p = 0; p < 3; p++) {
        snprintf(path, sizeof path, "%s/%s%s", dir, name, parts[p][0]);
        if (!write_text(path, parts[p][1])) {
            snprintf(msg, len, "cannot write %s", path);
            goto done;
        }
    }
    fprintf(drv, "#include \"%s.h\"\n", name);
    fprintf(drv, "static int run_%s(void) {\n    const void *in[%s_NUM_INPUTS + 1] = {0};\n", name, name);
    fprintf(drv, "    void *out[%s_NUM_OUTPUTS + 1] = {0};\n", name);
    int placeholder = 0;
    for (int a = 0; a < nin; a++) {
        if (k->args[a] != 'p') continue;
        snprintf(path, sizeof path, "%s/%s.in%d.bin", dir, name, placeholder);
        if (tu_write_file(path, inputs[a]->data, inputs[a]->nbytes)) {
            snprintf(msg, len, "cannot write %s", path);
            goto done;
        }
        fprintf(drv, "    in[%d] = rd(\"%s.in%d.bin\", %zu);\n", placeholder, name, placeholder, inputs[a]->nbytes);
        placeholder++;
    }
    /* room for the bound of a data-dependent output (written compactly first) */
    for (int q = 0; q < ref->num; q++)
        fprintf(drv, "    out[%d] = calloc(1, %s_OUTPUT%d_SIZE * sizeof(%s_OUTPUT%d_TYPE) + %zu + 1);\n", q, name, q,
                name, q, ref->t[q]->nbytes);
    fprintf(drv, "    int rc = %s_run((void *)in, (void *)out);\n", name);
    for (int q = 0; q < ref->num; q++)
        fprintf(drv, "    if (!rc) wr(\"%s.out%d.bin\", out[%d], %zu);\n", name, q, q, ref->t[q]->nbytes);
    fprintf(drv, "    return rc;\n}\n");
    rc = 1;
done:
    nnfx_codegen_files_free(&f);
    for (int a = 0; a < nin; a++)
        nnfx_tensor_release(inputs[a]);
    nnfx_graph_free(b.g);
    return rc;
}

/* Whether the C generator refusing kernel-table case `name` is expected:
 * MatMul with partial batch broadcasting, and Range of run-time limits (an
 * output size known only at run time). Any other refusal fails the codegen
 * differential, so an op's row that stops reaching its emitter is caught. */
static bool codegen_refusal_expected(const char *name) {
    return strcmp(name, "matmul_bcast") == 0 || strcmp(name, "range_int") == 0;
}

/* Every case of the kernel table (or of one op, only_op) that the C
 * generator takes: generated as C, compiled together into one program with
 * the system's cc, run, and each output compared with the interpreter's
 * (the reference) at the case's tolerance. Skipped without cc. */
static void test_differential_codegen(void **state) {
    (void)state;
    if (system("cc --version > /dev/null 2>&1") != 0) skip();
    char sub[96] = "kernels_codegen"; /* one folder per filter: ctest may run two at once */
    if (only_op) {
        size_t n = strlen(sub);
        sub[n++] = '_';
        for (const char *p = only_op; *p && n + 1 < sizeof sub; p++)
            sub[n++] =
                (char)(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : 'x');
        sub[n] = 0;
    }
    const char *dir = tu_tmpdir(sub);
    char path[1024], cmd[4096], msg[1400];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/kc* '%s'/main.c '%s'/driver", dir, dir, dir); /* an earlier run's */
    if (system(cmd) != 0) fail_msg("cannot clear %s", dir);
    snprintf(path, sizeof path, "%s/main.c", dir);
    FILE *drv = fopen(path, "w");
    assert_non_null(drv);
    fprintf(drv, "#include <stdio.h>\n#include <stdlib.h>\n#include <stdint.h>\n");
    fprintf(drv, "static void *rd(const char *p, size_t n) {\n    void *d = calloc(1, n + 1);\n"
                 "    FILE *f = fopen(p, \"rb\");\n    if (f) { if (fread(d, 1, n, f) != n) {} fclose(f); }\n"
                 "    return d;\n}\n");
    fprintf(drv, "static void wr(const char *p, const void *d, size_t n) {\n    FILE *f = fopen(p, \"wb\");\n"
                 "    if (f) { fwrite(d, 1, n, f); fclose(f); }\n}\n");
    static nnfx_value_set refs[NCASES];
    static int state_of[NCASES]; /* 1 generated, 0 not, -1 failed, -2 not selected */
    int generated = 0, refused = 0, failed = 0, nops = 0;
    bool op_seen[NNFX_OP_COUNT] = {0};
    for (int i = 0; i < NCASES; i++) {
        state_of[i] = -2;
        if (!case_selected(&cases[i])) continue;
        state_of[i] = codegen_case(i, dir, drv, &refs[i], msg, sizeof msg);
        if (state_of[i] == 1) {
            generated++;
            if (!op_seen[cases[i].op]) op_seen[cases[i].op] = true, nops++;
        } else if (state_of[i] == 0 && codegen_refusal_expected(cases[i].name)) {
            print_message("codegen refuses %s (%s): %s\n", cases[i].name, nnfx_op_name(cases[i].op), msg);
            refused++;
        } else if (state_of[i] == 0) {
            print_error("codegen refuses %s (%s), not an expected refusal: %s\n", cases[i].name,
                        nnfx_op_name(cases[i].op), msg);
            failed++;
        } else {
            print_error("codegen %s (%s): %s\n", cases[i].name, nnfx_op_name(cases[i].op), msg);
            failed++;
        }
    }
    fprintf(drv, "int main(void) {\n    int bad = 0;\n");
    for (int i = 0; i < NCASES; i++)
        if (state_of[i] == 1)
            fprintf(drv, "    if (run_kc%d()) { fprintf(stderr, \"kc%d: run failed\\n\"); bad++; }\n", i, i);
    fprintf(drv, "    return bad != 0;\n}\n");
    fclose(drv);
    if (generated) {
        snprintf(cmd, sizeof cmd, "cd '%s' && cc -std=c99 -O1 -w -o driver *.c -lm && ./driver", dir);
        int rc = system(cmd);
        if (rc != 0) print_error("codegen: compiling or running the generated C failed (%d)\n", rc);
        for (int i = 0; i < NCASES; i++) {
            if (state_of[i] != 1) continue;
            for (int q = 0; q < refs[i].num; q++) {
                const nnfx_tensor *want = refs[i].t[q];
                snprintf(path, sizeof path, "%s/kc%d.out%d.bin", dir, i, q);
                FILE *f = fopen(path, "rb");
                nnfx_tensor *got = nnfx_tensor_new(want->dtype, want->rank, want->shape, NULL);
                bool ok = f && got && fread(got->data, 1, want->nbytes, f) == want->nbytes;
                if (f) fclose(f);
                char why[512] = "no output written";
                if (!ok || !tu_tensor_close(got, want, cases[i].atol, cases[i].rtol, why, sizeof why)) {
                    print_error("codegen %s (%s) output %d differs from the interpreter: %s\n", cases[i].name,
                                nnfx_op_name(cases[i].op), q, why);
                    failed++;
                }
                nnfx_tensor_release(got);
            }
        }
    }
    for (int i = 0; i < NCASES; i++)
        for (int q = 0; q < refs[i].num; q++)
            nnfx_tensor_release(refs[i].t[q]);
    print_message("differential codegen: %d cases of %d ops generated, compiled and run; %d refused by the "
                  "generator\n",
                  generated, nops, refused);
    if (only_op && !generated && !refused) fail_msg("no case of op '%s' in the kernel table", only_op);
    assert_int_equal(failed, 0);
}

int main(int argc, char **argv) {
    /* `test_kernels differential [OP]`: only the interpreter-vs-plan
     * comparison, of every case or of op OP's */
    /* `test_kernels differential [OP]`: one op's cases (every case without
     * OP) through every engine: the interpreter (the reference), the
     * compiled plan at 1 and 2 threads, and generated C compiled and run;
     * differential_plan / differential_codegen: one of the two comparisons */
    if (argc > 1 && (strcmp(argv[1], "differential") == 0 || strcmp(argv[1], "differential_plan") == 0 ||
                     strcmp(argv[1], "differential_codegen") == 0)) {
        only_op = argc > 2 ? argv[2] : NULL;
        const struct CMUnitTest all[] = {cmocka_unit_test(test_differential),
                                         cmocka_unit_test(test_differential_codegen)};
        const struct CMUnitTest plan[] = {cmocka_unit_test(test_differential)};
        const struct CMUnitTest gen[] = {cmocka_unit_test(test_differential_codegen)};
        if (strcmp(argv[1], "differential_plan") == 0) return cmocka_run_group_tests(plan, NULL, NULL);
        if (strcmp(argv[1], "differential_codegen") == 0) return cmocka_run_group_tests(gen, NULL, NULL);
        return cmocka_run_group_tests(all, NULL, NULL);
    }
    /* `test_kernels uncovered_ops`: the ONNX types of the listed ops, one a line */
    if (argc > 1 && strcmp(argv[1], "uncovered_ops") == 0) {
        for (size_t u = 0; u < sizeof uncovered / sizeof uncovered[0]; u++)
            if (nnfx_op_onnx_type(uncovered[u].op)[0]) printf("%s\n", nnfx_op_onnx_type(uncovered[u].op));
        return 0;
    }
    /* `test_kernels coverage`: which ops of ops.def have a case in the harness */
    if (argc > 1 && strcmp(argv[1], "coverage") == 0) {
        const struct CMUnitTest cov[] = {cmocka_unit_test(test_harness_coverage)};
        return cmocka_run_group_tests(cov, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_cases),
        cmocka_unit_test(test_every_op_covered),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_bad_coverage_ops),
        cmocka_unit_test(test_kernel_direct_misuse),
        cmocka_unit_test(test_symbolic_and_cost),
        cmocka_unit_test(test_unknown_dims),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_npy),
        cmocka_unit_test(test_half_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
