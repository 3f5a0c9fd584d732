"""NumPy reference implementations of convolution and pooling (NHWC / HWIO) with TensorFlow's
SAME/VALID padding arithmetic, written independently of fn's kernels."""
import numpy as np


def window(size, k, stride, dilation, padding):
    """(output size, padding before, padding after) of one spatial dimension."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        return (size - eff) // stride + 1 if size >= eff else 0, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return out, total // 2, total - total // 2


def conv2d(x, w, stride=(1, 1), dilation=(1, 1), padding="SAME"):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, pt, pb = window(h, kh, stride[0], dilation[0], padding)
    ow, pl, pr = window(wd, kw, stride[1], dilation[1], padding)
    xp = np.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)]).astype(np.float64)
    out = np.zeros((n, oh, ow, o))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dilation[0]: i * dilation[0] + (oh - 1) * stride[0] + 1: stride[0],
                       j * dilation[1]: j * dilation[1] + (ow - 1) * stride[1] + 1: stride[1], :]
            out += np.einsum("nhwc,co->nhwo", patch, w[i, j].astype(np.float64))
    return out


def pool(x, k, stride, padding, kind):
    n, h, wd, c = x.shape
    oh, pt, _ = window(h, k[0], stride[0], 1, padding)
    ow, pl, _ = window(wd, k[1], stride[1], 1, padding)
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0] - pt, j * stride[1] - pl
            win = x[:, max(h0, 0): h0 + k[0], max(w0, 0): w0 + k[1], :]
            out[:, i, j, :] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


def conv1d_same(x, k, stride):
    """SAME 1-D convolution in float64 (NWC input, WIO filter)."""
    n, w, _ = x.shape
    kw, _, oc = k.shape
    ow = -(-w // stride)
    pad = max((ow - 1) * stride + kw - w, 0)
    xp = np.pad(x.astype(np.float64), ((0, 0), (pad // 2, pad - pad // 2), (0, 0)))
    out = np.zeros((n, ow, oc))
    for t in range(ow):
        out[:, t] = np.einsum("nwc,wco->no", xp[:, t * stride : t * stride + kw], k.astype(np.float64))
    return out


def gelu_tanh(h):
    """tf.nn.gelu(approximate=True) in float64."""
    return 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h**3)))
