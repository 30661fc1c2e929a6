#!/usr/bin/env python3
"""Writes the hostile-input corpus into OUT_DIR (default: ./hostile_corpus).

Every case is a model (ONNX or nnfx text IR) whose content is wrong in a way
that once crashed, hung, over-allocated or gave the wrong exit code: the
file name says what. bad_*: malformed content, every command but
inspect must exit 3; big_*: well-formed but asking for more memory than any
budget, 'run' must exit 3; odd_*: legal corner cases, no command may end by
a signal or exit 2 (usage). x.npy is a float32
[1, 3, 8, 8] input for the models with one input "x".
Usage: make_hostile.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1
out = sys.argv[1] if len(sys.argv) > 1 else "hostile_corpus"
os.makedirs(out, exist_ok=True)


def save(name, nodes, inits=(), inputs=None, outputs=None, opset=17):
    if inputs is None:
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])]
    if outputs is None:
        outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    if not inputs:
        NO_INPUT.append(name)
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def t(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


NO_INPUT = []
np.save(os.path.join(out, "x.npy"), np.linspace(-1, 1, 192, dtype=np.float32).reshape(1, 3, 8, 8))

# Conv whose weight has 0 output channels (divided by zero in the fast conv)
save("odd_conv_weight0", [helper.make_node("Conv", ["x", "w"], ["y"])], [t("w", np.zeros((0, 3, 3, 3), np.float32))])
# Conv group 2^63-1 (signed overflow in shape inference)
save("bad_conv_group_huge", [helper.make_node("Conv", ["x", "w"], ["y"], group=I64_MAX)],
     [t("w", np.zeros((4, 3, 3, 3), np.float32))])
# Conv pads 2^40 (huge output shape)
save("big_conv_pads_huge", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[2**40] * 4)],
     [t("w", np.zeros((4, 3, 3, 3), np.float32))])
# Conv pads near INT64_MAX (overflow computing the window)
save("bad_conv_pads_max", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[I64_MAX] * 4)],
     [t("w", np.zeros((4, 3, 3, 3), np.float32))])
# MaxPool kernel near INT64_MAX
save("odd_pool_kernel_max", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[I64_MAX, 2], strides=[I64_MAX, 1])])
# int64 Mod: INT64_MIN % -1 traps
save("odd_mod_int64_min", [helper.make_node("Mod", ["a", "b"], ["y"])],
     [t("a", np.array([I64_MIN, 7], np.int64)), t("b", np.array([-1, -1], np.int64))], inputs=[],
     outputs=[helper.make_tensor_value_info("y", TensorProto.INT64, [2])])
save("odd_fmod_int64_min", [helper.make_node("Mod", ["a", "b"], ["y"], fmod=1)],
     [t("a", np.array([I64_MIN, 7], np.int64)), t("b", np.array([-1, -1], np.int64))], inputs=[],
     outputs=[helper.make_tensor_value_info("y", TensorProto.INT64, [2])])
# Reshape to [2^62, 4, -1] (overflow multiplying the known dims)
save("bad_reshape_overflow", [helper.make_node("Reshape", ["x", "s"], ["y"])], [t("s", np.array([2**62, 4, -1], np.int64))])
save("bad_reshape_neg", [helper.make_node("Reshape", ["x", "s"], ["y"])], [t("s", np.array([-5, 4, -1], np.int64))])
# Range over the whole int64 line (overflow in the element count)
save("big_range_overflow", [helper.make_node("Range", ["a", "b", "c"], ["y"])],
     [t("a", np.array(I64_MIN, np.int64)), t("b", np.array(I64_MAX, np.int64)), t("c", np.array(1, np.int64))],
     inputs=[], outputs=[helper.make_tensor_value_info("y", TensorProto.INT64, None)])
save("big_range_huge", [helper.make_node("Range", ["a", "b", "c"], ["y"])],
     [t("a", np.array(0, np.int64)), t("b", np.array(2**50, np.int64)), t("c", np.array(1, np.int64))],
     inputs=[], outputs=[helper.make_tensor_value_info("y", TensorProto.INT64, None)])
# Slice with INT64_MIN steps and extreme starts/ends
save("odd_slice_min_step", [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
     [t("st", np.array([I64_MAX], np.int64)), t("en", np.array([I64_MIN], np.int64)), t("ax", np.array([3], np.int64)),
      t("sp", np.array([I64_MIN], np.int64))])
save("odd_slice_max_step", [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
     [t("st", np.array([I64_MIN], np.int64)), t("en", np.array([I64_MAX], np.int64)), t("ax", np.array([3], np.int64)),
      t("sp", np.array([I64_MAX], np.int64))])
# Expand / ConstantOfShape to huge shapes
save("big_expand_huge", [helper.make_node("Expand", ["x", "s"], ["y"])], [t("s", np.array([2**22, 3, 8, 8], np.int64))])
save("big_expand_overflow", [helper.make_node("Expand", ["x", "s"], ["y"])],
     [t("s", np.array([2**40, 2**40, 1, 3, 8, 8], np.int64))])
save("big_constant_of_shape_huge", [helper.make_node("ConstantOfShape", ["s"], ["y"])],
     [t("s", np.array([2**31, 2**31], np.int64))], inputs=[])
# Cos of an input declared with a huge / negative shape
save("big_cos_huge_input", [helper.make_node("Cos", ["x"], ["y"])],
     inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**40, 2**40])])
save("odd_cos_negative_input", [helper.make_node("Cos", ["x"], ["y"])],
     inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [-7, 3])])
# MatMul of inputs declared [2^31, 2^31]: the cost analysis multiplies past int64
save("big_matmul_cost_overflow", [helper.make_node("MatMul", ["x", "b"], ["y"])],
     inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**31, 2**31]),
             helper.make_tensor_value_info("b", TensorProto.FLOAT, [2**31, 2**31])])
# an initializer whose dims multiply past int64
big = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**40, 2**40, 2**40])
save("bad_init_dims_overflow", [helper.make_node("Add", ["x", "w"], ["y"])], [big])
# an initializer asking for 16 GiB of zeros without data
big = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4294967296])
save("bad_init_16g_nodata", [helper.make_node("Add", ["x", "w"], ["y"])], [big])


def external(name, location, dims=(4,)):
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(dims))
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(4 * int(np.prod(dims))))):
        e = w.external_data.add()
        e.key, e.value = k, v
    save(name, [helper.make_node("Mul", ["x", "w"], ["y"])], [w],
         inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])])


# external data in a FIFO (open() blocked forever) and through a symlink
external("bad_ext_fifo", "fifo.data")
fifo = os.path.join(out, "fifo.data")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
with open(os.path.join(out, "secret.bin"), "wb") as f:
    f.write(np.arange(4, dtype=np.float32).tobytes())
external("bad_ext_symlink", "link.data")
link = os.path.join(out, "link.data")
if os.path.lexists(link):
    os.remove(link)
os.symlink("secret.bin", link)
external("bad_ext_dir", ".")
external("bad_ext_escape", "../../../../etc/passwd")

# --- Control flow (If, Loop, Scan with subgraphs) ---------------------------
F = TensorProto.FLOAT


def body(name, nodes, ins, outs, inits=()):
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, ty, sh) for n, ty, sh in ins],
                             [helper.make_tensor_value_info(n, ty, sh) for n, ty, sh in outs], initializer=list(inits))


def ident(src, dst):
    return helper.make_node("Identity", [src], [dst])


cond = t("c", np.array(True))
# If whose branches return different numbers of values
save("bad_if_branch_arity", [helper.make_node(
    "If", ["c"], ["y"], then_branch=body("t", [ident("x", "a")], [], [("a", F, None)]),
    else_branch=body("e", [ident("x", "b"), ident("x", "b2")], [], [("b", F, None), ("b2", F, None)]))], [cond])
# Loop without a trip count or a condition: it would never end
save("bad_loop_no_trip_no_cond", [helper.make_node(
    "Loop", ["", "", "x"], ["y"], body=body("l", [ident("c_in", "c_out"), ident("v", "v_out")],
                                          [("i", TensorProto.INT64, []), ("c_in", TensorProto.BOOL, []), ("v", F, None)],
                                          [("c_out", TensorProto.BOOL, []), ("v_out", F, None)]))])
# Loop body taking fewer inputs than the node gives it
save("bad_loop_body_arity", [helper.make_node(
    "Loop", ["m", "", "x"], ["y"], body=body("l", [ident("c_in", "c_out")],
                                           [("i", TensorProto.INT64, []), ("c_in", TensorProto.BOOL, [])],
                                           [("c_out", TensorProto.BOOL, [])]))], [t("m", np.array(3, np.int64))])
# Scan over an axis the input does not have
save("bad_scan_axis", [helper.make_node(
    "Scan", ["x"], ["y"], num_scan_inputs=1, scan_input_axes=[7],
    body=body("s", [ident("xt", "yt")], [("xt", F, None)], [("yt", F, None)]))])
# If nested 40 deep (each level's branch is the next If)
inner = body("leaf", [ident("x", "r40")], [], [("r40", F, None)])
for k in range(39, -1, -1):
    leaf = body(f"e{k}", [ident("x", f"e{k}")], [], [(f"e{k}", F, None)])
    inner = body(f"lvl{k}", [helper.make_node("If", ["c"], [f"r{k}"], then_branch=inner, else_branch=leaf)], [],
                 [(f"r{k}", F, None)])
save("bad_if_nested_deep", [helper.make_node("If", ["c"], ["y"], then_branch=inner,
                                             else_branch=body("e", [ident("x", "e")], [], [("e", F, None)]))], [cond])
# Loop that never stops by itself (trip count INT64_MAX, condition always
# true): stopped by nnfx's iteration budget
save("odd_loop_runaway", [helper.make_node(
    "Loop", ["m", "c", "x"], ["y"], body=body("l", [ident("c_in", "c_out"), ident("v", "v_out")],
                                            [("i", TensorProto.INT64, []), ("c_in", TensorProto.BOOL, []),
                                             ("v", F, None)],
                                            [("c_out", TensorProto.BOOL, []), ("v_out", F, None)]))],
     [t("m", np.array(I64_MAX, np.int64)), cond])



def if_text(name, level, indent):
    """Text IR lines of an If branch `name` holding `level` nested Ifs."""
    pad, inner = " " * indent, " " * (indent + 4)
    lines = [f"{pad}{name} = graph():", f"{inner}%c : [num_users=1] = placeholder[target=c]  # bool[]"]
    if level == 0:
        return lines + [f"{inner}return c"]
    lines.append(f"{inner}%y : [num_users=1] = call_function[target=if](args = (%c, %c), "
                 "kwargs = {then_branch: graph, else_branch: graph})")
    return lines + if_text("then_branch", level - 1, indent + 12) + if_text("else_branch", 0, indent + 12) + [
        f"{inner}return y"]


# text IR
texts = {
    # If bodies nested 40 deep (past nnfx's limit on subgraph nesting)
    "bad_text_if_nested_deep": "\n".join(["graph():"] + if_text("x", 40, 0)[1:]) + "\n",
    # a node announcing a body that never follows
    "bad_text_missing_body": "graph():\n    %c : [num_users=1] = placeholder[target=c]  # bool[]\n"
    "    %y : [num_users=1] = call_function[target=if](args = (%c,), kwargs = {then_branch: graph, "
    "else_branch: graph})\n    return y\n",
    # a body with no return line
    "bad_text_body_no_return": "graph():\n    %c : [num_users=1] = placeholder[target=c]  # bool[]\n"
    "    %y : [num_users=1] = call_function[target=if](args = (%c,), kwargs = {then_branch: graph, "
    "else_branch: graph})\n        then_branch = graph():\n        else_branch = graph():\n    return y\n",
    "bad_text_return_literal": "graph():\n    %x : [num_users=0] = placeholder[target=x]  # float32[4]\n    return 5\n",
    "bad_text_param_16g": "graph():\n    # param w : float32[4294967296]\n"
    "    %x : [num_users=1] = placeholder[target=x]  # float32[4]\n    return x\n",
    "bad_text_param_overflow": "graph():\n    # param w : float32[4294967296, 4294967296, 4294967296]\n"
    "    %x : [num_users=1] = placeholder[target=x]  # float32[4]\n    return x\n",
    "big_text_input_huge": "graph():\n    %x : [num_users=1] = placeholder[target=x]  # float32[9223372036854775807, 2]\n"
    "    %y : [num_users=1] = call_function[target=cos](args = (%x,), kwargs = {})\n    return y\n",
}
for k, v in texts.items():
    with open(os.path.join(out, k + ".fx"), "w") as f:
        f.write(v)

# truncated and garbage ONNX bytes
with open(os.path.join(out, "odd_conv_weight0.onnx"), "rb") as f:
    good = f.read()
with open(os.path.join(out, "bad_truncated.onnx"), "wb") as f:
    f.write(good[: len(good) // 2])
with open(os.path.join(out, "bad_garbage.onnx"), "wb") as f:
    f.write(bytes((i * 73 + 11) % 256 for i in range(300)))

# models without inputs: 'nnfx run' gets no --input for them
with open(os.path.join(out, "no_input.txt"), "w") as f:
    f.write("".join(n + "\n" for n in NO_INPUT))

# a well-formed model with 16 KiB of weights, for the data-safety checks
save("data_mul", [helper.make_node("Mul", ["x", "w"], ["y"])], [t("w", np.arange(4096, dtype=np.float32))],
     inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [4096])])
np.save(os.path.join(out, "x4096.npy"), np.ones(4096, np.float32))
