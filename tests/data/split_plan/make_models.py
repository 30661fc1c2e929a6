#!/usr/bin/python3
"""Exports small PyTorch modules for the compiled plan's multi-output and
data-dependent nodes, with PyTorch's outputs:
 - masked_tokens: NonZero in the middle (a token selection by score, twice),
   two inputs that select different numbers of tokens, for
   tests/test_split_plan.c (a node whose output size is known only at run
   time splits the compiled plan);
 - qkv_attention: attention whose q, k, v come from one Split of the last
   axis (torch.split) and an uneven Split after it, for test_split_plan.c
   and `nnfx codegen` (tests/codegen/check_codegen.py);
 - select_attend: the tokens of a row mask (NonZero -> Gather) through a
   Linear, then what reads along the selected tokens: their mean, a softmax
   attention over them, their Gram matrix (a MatMul summing over them) and
   their max; the coordinates of a 2-d mask (torch.nonzero: NonZero ->
   Transpose) and the rows a boolean mask picks (x[mask]: NonZero ->
   Transpose -> GatherND), the row means of a [K, K] similarity; two
   samples selecting different numbers of rows;
 - detect_post: torchvision.ops.nms and the kept boxes and scores (NMS ->
   Gather -> Squeeze -> Gather), for `nnfx codegen`'s values after a
   data-dependent node (check_codegen.py).
 - detect_classes: torchvision's SSD post-processing in small (per class a
   threshold, TopK of min(5, count), labels by ConstantOfShape; Concat along
   the counts; batched_nms), for sizes computed from data-dependent counts.
 - masked_batch: x[mask] along the batch, then ConvTranspose, InstanceNorm,
   bilinear Resize, LRN and DepthToSpace per sample.
 - detect_fcos, detect_retina, detect_frcnn: torchvision's FCOS, RetinaNet
   and Faster R-CNN whole (on a two-conv backbone, 64x64 images): the same,
   with box decoding and clipping (a Reshape to the boxes' own computed
   shape); Faster R-CNN also RoIAlign of its proposals per level (Range,
   Expand, ScatterElements over them) and a box head.
 - detect_mrcnn: torchvision's Mask R-CNN whole on the same backbone (a
   small mask head), whose paste of each mask into the image is a Loop over
   the detections sizing values by the box coordinates it reads
   (check_codegen.py's check_mrcnn_ort, against ONNX Runtime).
 - detect_krcnn: torchvision's Keypoint R-CNN whole on a backbone of two
   feature maps (RoIAlign per level, merged by a ScatterElements along the
   detections; a small keypoint head, 3 keypoints), whose Loop over the detections
   resizes each heatmap to its box (bicubic), flattens it and takes its
   arg-max (check_codegen.py's check_krcnn_ort, against ONNX Runtime).

Usage (Debian's /usr/bin/python3 with python3-torch and python3-onnx):

    /usr/bin/python3 tests/data/split_plan/make_models.py [NAME...]

writes M.onnx and, per sample j, M.s<j>.in<i>.npy and M.s<j>.out<k>.npy
next to this script (PyTorch's outputs in eval mode). Exit status 77 when
torch or torchvision is missing.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import numpy as np
        import torch
        import torchvision
        from torch import nn
    except ImportError as e:
        print(f"skip: {e}", file=sys.stderr)
        return 77

    class MaskedTokens(nn.Module):
        """conv stem -> a score per position -> the positions scoring > 0
        (NonZero) -> an MLP on those tokens -> the tokens whose first
        feature is > 0 (NonZero again) -> their sum; also returns the first
        selection's indices."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
                nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
            self.score = nn.Conv2d(32, 1, 1)
            self.mlp = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))

        def forward(self, x):  # x [1, 3, 64, 64]
            h = self.stem(x)  # [1, 32, 32, 32]
            s = self.score(h).flatten()  # [1024]
            idx = torch.nonzero(s > 0).squeeze(1)  # [K]
            tok = h.flatten(2).transpose(1, 2)[0]  # [1024, 32]
            y = self.mlp(tok[idx])  # [K, 32]
            keep = torch.nonzero(y[:, 0] > 0).squeeze(1)  # [K2]
            return y[keep].sum(0), idx

    class QkvAttention(nn.Module):
        """Two-head self-attention, q, k, v = split(qkv(x), dim, -1) (a Split
        of the last axis), then an uneven split [16, 8] of the projection:
        sum(a) * b."""

        def __init__(self, dim=24, heads=2):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):  # x [1, T, dim]
            b, t, d = x.shape
            q, k, v = torch.split(self.qkv(x), d, dim=-1)
            q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
            a = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
            y = self.proj((a @ v).transpose(1, 2).reshape(b, t, d))
            g, h = torch.split(y, [16, 8], dim=-1)
            return g.sum(-1, keepdim=True) * h

    class SelectAttend(nn.Module):
        """The rows of x whose first value is > 0 (NonZero -> Gather), a
        Linear and tanh on them, then their mean, a softmax attention over
        them, their Gram matrix and their max; torch.nonzero(x > 0.5); the
        rows x[mask] of a boolean mask; the row means of the tokens'
        similarity matrix [K, K]."""

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.q = nn.Parameter(torch.randn(8, 1))

        def forward(self, x):  # x [16, 8]
            pos = torch.nonzero(x > 0.5)  # [P, 2]
            idx = torch.nonzero(x[:, 0] > 0).squeeze(1)  # [K]
            h = torch.tanh(self.proj(x[idx]))  # [K, 8]
            att = torch.softmax(h @ self.q, 0)  # [K, 1]
            sim = h @ h.t()  # [K, K]: both dims the selection's
            return h.mean(0), (att * h).sum(0), h.t() @ h, h.amax(0), pos, x[x[:, 1] > 0.3], sim.mean(1)

    class DetectPost(nn.Module):
        """NMS of the boxes by score (IoU 0.5), the kept boxes and scores."""

        def forward(self, boxes, scores):  # [N, 4], [N]
            keep = torchvision.ops.nms(boxes, scores, 0.5)
            return boxes[keep], scores[keep]

    class DetectClasses(nn.Module):
        """torchvision's SSD post-processing in small: per class, the scores
        above 0.3 (NonZero), the top min(5, count) of them (TopK with a K
        computed from the count), their boxes and a label each
        (ConstantOfShape of their count); then all classes joined (Concat
        along the counts), torchvision's batched_nms (an If around nms
        when tracing) and the first 8 kept."""

        def forward(self, boxes, logits):  # [N, 4], [N, C]
            from torchvision.models.detection._utils import _topk_min
            scores = torch.softmax(logits, -1)
            all_boxes, all_scores, all_labels = [], [], []
            for c in range(1, scores.size(1)):
                s = scores[:, c]
                keep = s > 0.3
                s, b = s[keep], boxes[keep]
                s, idx = s.topk(_topk_min(s, 5, 0))
                all_boxes.append(b[idx])
                all_scores.append(s)
                all_labels.append(torch.full_like(s, c, dtype=torch.int64))
            b, s, lab = torch.cat(all_boxes, 0), torch.cat(all_scores, 0), torch.cat(all_labels, 0)
            keep = torchvision.ops.boxes.batched_nms(b, s, lab, 0.5)[:8]
            return b[keep], s[keep], lab[keep]

    class MaskedBatch(nn.Module):
        """The samples whose sum is positive (x[mask] along the batch), then
        per sample a ConvTranspose, InstanceNorm, bilinear upsampling, LRN
        and DepthToSpace: ops that treat each batch index apart, run along a
        data-dependent batch."""

        def __init__(self):
            super().__init__()
            self.up = nn.ConvTranspose2d(2, 4, 3, stride=2)
            self.norm = nn.InstanceNorm2d(4, affine=True)
            self.lrn = nn.LocalResponseNorm(3)

        def forward(self, x):  # [6, 2, 4, 4]
            h = x[x.sum((1, 2, 3)) > 0]
            h = self.norm(self.up(h))
            h = nn.functional.interpolate(h, scale_factor=2.0, mode="bilinear", align_corners=False)
            return (nn.functional.pixel_shuffle(self.lrn(h), 2),)

    class TinyBackbone(nn.Module):
        """Two strided convs: one 16x16 feature map of 32 channels for a
        64x64 image (the detectors below are torchvision's own)."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
            self.out_channels = 32

        def forward(self, x):
            return {"0": self.body(x)}

    class TwoLevelBackbone(nn.Module):
        """TinyBackbone's convs and a third: feature maps "0" (16x16) and "1"
        (8x8) of 32 channels, so that MultiScaleRoIAlign assigns boxes to
        levels and merges them (a ScatterElements along the detections)."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
            self.down = nn.Sequential(nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU())
            self.out_channels = 32

        def forward(self, x):
            f = self.body(x)
            return {"0": f, "1": self.down(f)}

    sys.path.insert(0, os.path.dirname(HERE))  # tests/data: gen_real_models.detections_module
    from gen_real_models import detections_module
    Detections = detections_module()

    class MaskDetections(nn.Module):
        """Mask R-CNN on one image: its boxes, scores, labels and masks."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            d = self.m([x[0]])[0]
            return d["boxes"], d["scores"], d["labels"], d["masks"]

    class KeypointDetections(nn.Module):
        """Keypoint R-CNN on one image: its boxes, scores, labels, keypoints and their scores."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            d = self.m([x[0]])[0]
            return d["boxes"], d["scores"], d["labels"], d["keypoints"], d["keypoints_scores"]

    def tiny_detector(kind):
        """torchvision's FCOS or RetinaNet (its transform, heads and
        post-processing: per-level TopK of min(candidates, count), box
        decoding and clipping, batched_nms) on TinyBackbone, 4 classes. The
        heads get He-initialised weights and class logits scaled (by 4 for
        FCOS, whose scores are a geometric mean with the centerness, by 0.25
        for RetinaNet, whose sigmoids would saturate at 1), so scores are
        spread: no near ties decide the order."""
        from torchvision.models.detection import FCOS, FasterRCNN, KeypointRCNN, MaskRCNN, RetinaNet
        from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor
        from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
        from torchvision.models.detection.anchor_utils import AnchorGenerator
        from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
        from torchvision.ops import MultiScaleRoIAlign
        gen = torch.Generator().manual_seed({"fcos": 20261204, "retina": 20261205, "frcnn": 20261206,
                                             "mrcnn": 20261208, "krcnn": 20261209}[kind])
        if kind in ("frcnn", "mrcnn", "krcnn"):  # RPN proposals, RoIAlign of them, a small box head, per-class post-processing
            two_stage = dict(rpn_anchor_generator=AnchorGenerator(sizes=((16, 32),), aspect_ratios=((0.5, 1.0, 2.0),)),
                             box_roi_pool=MultiScaleRoIAlign(["0"], 7, 2), box_head=TwoMLPHead(32 * 49, 64),
                             box_predictor=FastRCNNPredictor(64, 4), min_size=64, max_size=64,
                             rpn_pre_nms_top_n_test=60, rpn_post_nms_top_n_test=24, box_score_thresh=0.2,
                             box_detections_per_img=12)
            if kind == "frcnn":
                m = FasterRCNN(TinyBackbone(), num_classes=None, **two_stage)
            elif kind == "mrcnn":  # and a mask head of one conv, its masks pasted into the image by a Loop
                m = MaskRCNN(TinyBackbone(), num_classes=None, mask_roi_pool=MultiScaleRoIAlign(["0"], 14, 2),
                             mask_head=MaskRCNNHeads(32, [16], 1), mask_predictor=MaskRCNNPredictor(16, 16, 4),
                             **two_stage)
            else:  # two levels, a keypoint head of one conv: 3 heatmaps per box, each resized to its box in a Loop
                two_stage.update(box_predictor=FastRCNNPredictor(64, 2), box_roi_pool=MultiScaleRoIAlign(["0", "1"], 7, 2),
                                 rpn_anchor_generator=AnchorGenerator(sizes=((16,), (32,)),
                                                                      aspect_ratios=((0.5, 1.0, 2.0),) * 2))
                m = KeypointRCNN(TwoLevelBackbone(), num_classes=None,
                                 keypoint_roi_pool=MultiScaleRoIAlign(["0", "1"], 14, 2),
                                 keypoint_head=KeypointRCNNHeads(32, [16]), keypoint_predictor=KeypointRCNNPredictor(16, 3),
                                 **two_stage)
            with torch.no_grad():
                for mod in m.modules():
                    if isinstance(mod, (nn.Conv2d, nn.Linear, nn.ConvTranspose2d)):
                        mod.weight.copy_(torch.randn(mod.weight.shape, generator=gen) *
                                         (2.0 / mod.weight[0].numel()) ** 0.5)
                        if mod.bias is not None:
                            mod.bias.zero_()
                m.roi_heads.box_predictor.cls_score.weight.mul_(3.0)
            xs = [(torch.rand(1, 3, 64, 64, generator=gen),), (torch.rand(1, 3, 64, 64, generator=gen) * 0.5,)]
            wrap = {"frcnn": Detections, "mrcnn": MaskDetections, "krcnn": KeypointDetections}[kind]
            return wrap(m.eval()).eval(), xs
        anchors = AnchorGenerator(sizes=((24,),), aspect_ratios=((1.0,),)) if kind == "fcos" else \
            AnchorGenerator(sizes=((16, 32),), aspect_ratios=((0.5, 1.0, 2.0),))
        cls = FCOS if kind == "fcos" else RetinaNet
        m = cls(TinyBackbone(), num_classes=4, anchor_generator=anchors, min_size=64, max_size=64,
                score_thresh=0.2, detections_per_img=12, topk_candidates=40)
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, nn.Conv2d):
                    mod.weight.copy_(torch.randn(mod.weight.shape, generator=gen) * (2.0 / mod.weight[0].numel()) ** 0.5)
                    if mod.bias is not None:
                        mod.bias.zero_()
                elif isinstance(mod, nn.GroupNorm):
                    mod.weight.copy_(1 + 0.1 * torch.randn(mod.weight.shape, generator=gen))
            m.head.classification_head.cls_logits.weight.mul_(4.0 if kind == "fcos" else 0.25)
        xs = [(torch.rand(1, 3, 64, 64, generator=gen),), (torch.rand(1, 3, 64, 64, generator=gen) * 0.5,)]
        return Detections(m.eval()).eval(), xs

    def export(name, model, samples, input_names, output_names, save_outputs=True):
        path = os.path.join(HERE, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(model, samples[0], path, opset_version=17, input_names=input_names,
                              output_names=output_names)
            for j, xs in enumerate(samples):
                for i, x in enumerate(xs):
                    np.save(os.path.join(HERE, f"{name}.s{j}.in{i}.npy"), x.numpy())
                outs = model(*xs)
                for k, o in enumerate(outs if save_outputs else []):
                    np.save(os.path.join(HERE, f"{name}.s{j}.out{k}.npy"), o.numpy())
                print(f"{name} sample {j}: outputs {[tuple(o.shape) for o in outs]}")
        print(f"{name}.onnx: {os.path.getsize(path)} bytes")

    only = sys.argv[1:]
    torch.manual_seed(20261202)
    if not only or "select_attend" in only:
        export("select_attend", SelectAttend().eval(), [(torch.randn(16, 8),), (torch.randn(16, 8) - 0.5,)], ["x"],
               ["mean", "attended", "gram", "max", "positions", "masked_rows", "sim_means"])
    xy, wh = torch.rand(2, 40, 2) * 24, torch.rand(2, 40, 2) * 10 + 4
    if not only or "detect_post" in only:
        export("detect_post", DetectPost().eval(),
               [(torch.cat([xy[j], xy[j] + wh[j]], 1), torch.rand(40)) for j in (0, 1)], ["boxes", "scores"],
               ["kept_boxes", "kept_scores"])
    if not only or "detect_classes" in only:
        gen = torch.Generator().manual_seed(20261203)
        xy, wh = torch.rand(2, 30, 2, generator=gen) * 24, torch.rand(2, 30, 2, generator=gen) * 10 + 4
        logits = [torch.randn(30, 4, generator=gen) * 1.5, torch.randn(30, 4, generator=gen) + torch.tensor([3.0, 0, 0, 0])]
        export("detect_classes", DetectClasses().eval(),
               [(torch.cat([xy[j], xy[j] + wh[j]], 1), logits[j]) for j in (0, 1)], ["boxes", "logits"],
               ["boxes_kept", "scores_kept", "labels_kept"])
    if not only or "masked_batch" in only:
        gen = torch.Generator().manual_seed(20261207)
        model = MaskedBatch().eval()
        with torch.no_grad():
            model.norm.weight.copy_(1 + 0.2 * torch.randn(4, generator=gen))
            model.norm.bias.copy_(0.2 * torch.randn(4, generator=gen))
        xs = [torch.randn(6, 2, 4, 4, generator=gen), -torch.rand(6, 2, 4, 4, generator=gen)]
        xs[1][4] = xs[1][4].abs()  # one sample of six selected
        export("masked_batch", model, [(xs[0],), (xs[1],)], ["x"], ["y"])
    for kind in ("fcos", "retina", "frcnn", "mrcnn", "krcnn"):
        if not only or "detect_" + kind in only:
            model, xs = tiny_detector(kind)
            # Faster, Mask and Keypoint R-CNN's ONNX exports do not give eager PyTorch's detections (ONNX Runtime
            # agrees with nnfx, not with PyTorch): no PyTorch outputs are kept; check_codegen.py compares with
            # ONNX Runtime
            extra = {"mrcnn": ["masks"], "krcnn": ["keypoints", "keypoints_scores"]}.get(kind, [])
            export("detect_" + kind, model, xs, ["image"], ["boxes", "scores", "labels"] + extra,
                   kind not in ("frcnn", "mrcnn", "krcnn"))
    if only:
        return 0

    torch.manual_seed(20241202)
    model = QkvAttention().eval()
    x = torch.randn(1, 10, 24)
    path = os.path.join(HERE, "qkv_attention.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (x,), path, opset_version=17, input_names=["x"], output_names=["y"],
                          do_constant_folding=True)
        np.save(os.path.join(HERE, "qkv_attention.s0.in0.npy"), x.numpy())
        np.save(os.path.join(HERE, "qkv_attention.s0.out0.npy"), model(x).numpy())
    print(f"qkv_attention.onnx: {os.path.getsize(path)} bytes")

    torch.manual_seed(20241201)
    model = MaskedTokens().eval()
    xs = [torch.randn(1, 3, 64, 64), torch.randn(1, 3, 64, 64) * 0.5 + 0.3]
    path = os.path.join(HERE, "masked_tokens.onnx")
    with torch.no_grad():
        # biases that select about half of the first sample's positions and tokens
        h = model.stem(xs[0])
        model.score.bias -= model.score(h).flatten().median()
        tok = h.flatten(2).transpose(1, 2)[0]
        model.mlp[2].bias[0] -= model.mlp(tok)[:, 0].median()
        torch.onnx.export(model, (xs[0],), path, opset_version=17, input_names=["x"],
                          output_names=["sum", "idx"], do_constant_folding=True)
        for j, x in enumerate(xs):
            outs = model(x)
            np.save(os.path.join(HERE, f"masked_tokens.s{j}.in0.npy"), x.numpy())
            for k, o in enumerate(outs):
                np.save(os.path.join(HERE, f"masked_tokens.s{j}.out{k}.npy"), o.numpy())
            print(f"sample {j}: {outs[1].shape[0]} tokens selected")
    print(f"masked_tokens.onnx: {os.path.getsize(path)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
