"""The float reference of an ONNX graph: a small interpreter of the operators the speech embedding
and its log-mel graph use, read with Debian's python3-onnx and run in float32 (PyTorch for the
convolutions). It computes what the graph says, node by node, so the imported int8 model and the
fixed-point front end are measured against the graph itself, not against a re-implementation."""
import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def _conv(x, w, b=None, pads=(0, 0, 0, 0), strides=(1, 1), **_):
    xt, wt = torch.from_numpy(np.array(x)), torch.from_numpy(np.array(w))
    bt = None if b is None else torch.from_numpy(b)
    if x.ndim == 3:  # 1-D: pads (begin, end)
        xt = F.pad(xt, (pads[0], pads[1]))
        return F.conv1d(xt, wt, bt, stride=strides[0]).numpy()
    top, left, bottom, right = pads  # ONNX: (begin_h, begin_w, end_h, end_w)
    xt = F.pad(xt, (left, right, top, bottom))
    return F.conv2d(xt, wt, bt, stride=tuple(strides)).numpy()


def _reshape(x, shape):
    shape = [x.shape[i] if s == 0 else int(s) for i, s in enumerate(shape)]
    return x.reshape(shape)


def _reduce_max(x, axes=None, keepdims=1):
    return np.max(x, axis=None if axes is None else tuple(axes), keepdims=bool(keepdims))


_OPS = {
    "Conv": lambda x, w, b=None, **a: _conv(x, w, b, **a),
    "LeakyRelu": lambda x, alpha=0.01: np.where(x >= 0, x, np.float32(alpha) * x),
    "Max": lambda *xs: np.maximum.reduce(np.broadcast_arrays(*xs)),
    "MaxPool": lambda x, kernel_shape, strides, pads=(0, 0, 0, 0): F.max_pool2d(
        torch.from_numpy(x), tuple(kernel_shape), tuple(strides)).numpy(),
    "Reshape": _reshape,
    "Unsqueeze": lambda x, axes: np.expand_dims(x, tuple(int(a) for a in axes)),
    "Transpose": lambda x, perm: np.transpose(x, perm),
    "Pow": lambda x, y: np.power(x, y),
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
    "MatMul": np.matmul,
    "Clip": lambda x, lo=None, hi=None: np.clip(x, -np.inf if lo is None else lo,
                                                np.inf if hi is None else hi),
    "Log": np.log,
    "ReduceMax": _reduce_max,
    "Cast": lambda x, to: x.astype(np.float32),
}


class Graph:
    def __init__(self, path):
        model = onnx.load(path)
        self.graph = model.graph
        self.constants = {i.name: numpy_helper.to_array(i) for i in self.graph.initializer}
        self.input = self.graph.input[0].name
        self.output = self.graph.output[0].name

    def initializer(self, name):
        return self.constants[name]

    def run(self, x, keep=()):
        """The graph's output for input x (float32), and the values named in `keep`."""
        values = dict(self.constants)
        values[self.input] = np.asarray(x, dtype=np.float32)
        for node in self.graph.node:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if node.op_type == "Constant":
                values[node.output[0]] = numpy_helper.to_array(attrs["value"])
                continue
            ins = [values[n] if n else None for n in node.input]
            if node.op_type == "Clip":
                ins += [None] * (3 - len(ins))
            if node.op_type in ("Unsqueeze", "Reshape"):  # opset 13: axes / shape are inputs
                out = _OPS[node.op_type](ins[0], ins[1])
            else:
                attrs = {k: v for k, v in attrs.items() if k in ("pads", "strides", "alpha", "perm",
                                                                 "kernel_shape", "axes", "keepdims",
                                                                 "to")}
                if node.op_type == "Conv":
                    attrs.pop("kernel_shape", None)
                out = _OPS[node.op_type](*ins, **attrs)
            values[node.output[0]] = np.asarray(out, dtype=np.float32)
        result = values[self.output]
        return (result, {k: values[k] for k in keep}) if keep else result
