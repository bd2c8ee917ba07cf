# The network player's side of the binding (included by _engine.pyx): the C block of a
# network (csrc/net.c's uno_net header and its weights, built from a weight file's arrays
# by uno_sim.players.net), the weight file's checksum and the C forward pass (for tests).


def fnv1a64(const unsigned char[::1] data, uint64_t h=0xCBF29CE484222325):
    """FNV-1a 64 of `data` from state `h` (the weight file's checksum, docs/net.md)."""
    cdef size_t n = data.shape[0]
    with nogil:
        h = uno_fnv1a64(&data[0] if n else NULL, n, h)
    return h


def net_block(int n_kinds, int seats, int flip, int extreme, widths, weights):
    """The uno_net block (uint8 array) of a network of this layout and hidden widths whose
    weights, in the file's order, are the float32 array `weights`."""
    cdef int32_t w[4]
    cdef uno_net head
    cdef int i
    if not 1 <= len(widths) <= 4:
        raise RulesError(f"invalid network: {len(widths)} hidden layers, expected 1..4")
    for i in range(len(widths)):
        w[i] = widths[i]
    cdef int64_t n = uno_net_setup(&head, n_kinds, seats, flip, extreme, len(widths), w)
    if n < 0:
        raise RulesError("invalid network: its sizes are out of the C player's range")
    flat = np.ascontiguousarray(weights, dtype=np.float32).reshape(-1)
    if flat.shape[0] != n:
        raise RulesError(f"invalid network: {flat.shape[0]} weights, its sizes need {n}")
    block = np.zeros(head.data + 4 * n, dtype=np.uint8)
    cdef unsigned char[::1] b = block
    memcpy(&b[0], &head, sizeof(uno_net))
    block[head.data:] = flat.view(np.uint8)
    return block


def net_forward(const unsigned char[::1] block, obs):
    """(logits, value) of the C forward pass (uno_net_forward) on one observation."""
    cdef const uno_net *net = <const uno_net *>&block[0]
    cdef cnp.ndarray x = np.ascontiguousarray(obs, dtype=np.float32).reshape(-1)
    if x.shape[0] != net.L.size:
        raise ValueError(f"observation of {x.shape[0]} entries, the network reads {net.L.size}")
    cdef cnp.ndarray logits = np.empty(net.L.n_actions, dtype=np.float32)
    cdef float value = 0.0
    with nogil:
        uno_net_forward(net, <const float *>cnp.PyArray_DATA(x),
                        <float *>cnp.PyArray_DATA(logits), &value)
    return logits, np.float32(value)


cdef cnp.ndarray _net_of(block):
    """A network block checked enough to be read by C (a uint8 array holding its header and
    every weight the header counts)."""
    cdef cnp.ndarray b = block
    cdef const uno_net *net
    if b.dtype != np.uint8 or b.ndim != 1 or not b.flags.c_contiguous or b.shape[0] < sizeof(uno_net):
        raise RulesError("invalid network block: expected uno_sim.players.net.Loaded.block")
    net = <const uno_net *>cnp.PyArray_DATA(b)
    if net.data < sizeof(uno_net) or b.shape[0] != net.data + 4 * net.n_floats:
        raise RulesError("invalid network block: its size does not match its header")
    return b


cdef uno_policy _pol_probe
# Where uno_policy.net lies in the bytes of Engine.raw()'s uno_policy records: the GPU
# runner writes there the device address of its copy of Engine.nets[seat].
POLICY_NET_OFFSET = <char *>&_pol_probe.net - <char *>&_pol_probe
POLICY_SIZE = sizeof(uno_policy)
