"""ctypes mirrors of the structs and enums of api/portkern.h and api/pk_dlpack.h.

Field order, types and names follow the headers one for one, so that the
layout test (tests/test_layout.py) can compare every size and offset with
what the C compiler says. Each struct names its C type in `_c_name_` for
that test.
"""
import ctypes
from ctypes import (POINTER, Structure, c_char, c_float, c_int, c_int32, c_int64,
                    c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

# C enums are int-sized on every ABI portkern supports (values are small).
c_enum = c_int

MAX_DIMS = 4
CHAIN_MAX_INPUTS = 8
CHAIN_MAX_STEPS = 32

# pk_status, in the header's order
STATUS_NAMES = (
    "PK_SUCCESS", "PK_ERR_NULL_ARGUMENT", "PK_ERR_INVALID_ARGUMENT", "PK_ERR_DTYPE_MISMATCH",
    "PK_ERR_SHAPE_MISMATCH", "PK_ERR_BAD_SIZE", "PK_ERR_OUT_OF_BOUNDS", "PK_ERR_MISALIGNED",
    "PK_ERR_WRONG_CONTEXT", "PK_ERR_OUT_OF_MEMORY", "PK_ERR_UNSUPPORTED", "PK_ERR_NO_DEVICE",
    "PK_ERR_BACKEND_UNAVAILABLE", "PK_ERR_BUILD_FAILED", "PK_ERR_DEVICE_FAILURE",
    "PK_ERR_CONTEXT_LOST", "PK_ERR_INTERNAL",
)
STATUS = {name: i for i, name in enumerate(STATUS_NAMES)}

# pk_backend
BACKENDS = ("auto", "ref", "opencl", "cuda", "hip")
BACKEND = {name: i for i, name in enumerate(BACKENDS)}

# pk_dtype: name -> (enum value, element size in bytes). i32 is for indices
# alone (device-side RoPE positions and attention lengths).
DTYPES = {"f32": (0, 4), "f16": (1, 2), "bf16": (2, 2), "i32": (3, 4)}
DTYPE_NAMES = {v[0]: k for k, v in DTYPES.items()}

# pk_activation
ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}

# pk_chain_op, in the header's order
CHAIN_OPS = (
    "add", "sub", "mul", "div", "max", "min",
    "add_imm", "mul_imm", "pow_imm",
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
    "gelu_tanh", "silu",
)
CHAIN_OP = {name: i for i, name in enumerate(CHAIN_OPS)}

# DLDeviceType values portkern's import/export meets
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_OPENCL = 1, 2, 3, 4
DL_ROCM, DL_ROCM_HOST, DL_CUDA_MANAGED = 10, 11, 13
# DLDataTypeCode
DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT = 0, 1, 2, 4
DL_FLAG_READ_ONLY = 1 << 0


class DeviceInfo(Structure):
    _c_name_ = "pk_device_info"
    _fields_ = [
        ("backend", c_enum),
        ("index", c_int),
        ("name", c_char * 256),
        ("vendor", c_char * 128),
        ("driver", c_char * 128),
        ("global_mem_bytes", c_uint64),
        ("local_mem_bytes", c_uint64),
        ("compute_units", c_int),
        ("simd_width", c_int),
        ("is_cpu", c_int),
        ("native_fp16", c_int),
        ("native_bf16", c_int),
        ("matrix_units", c_int),
    ]


class TensorDesc(Structure):
    _c_name_ = "pk_tensor"
    _fields_ = [
        ("buf", c_void_p),
        ("offset", c_size_t),
        ("dtype", c_enum),
        ("ndim", c_int),
        ("shape", c_int64 * MAX_DIMS),
        ("stride", c_int64 * MAX_DIMS),
    ]


class GemmDesc(Structure):
    _c_name_ = "pk_gemm_desc"
    _fields_ = [
        ("trans_a", c_int),
        ("trans_b", c_int),
        ("alpha", c_float),
        ("beta", c_float),
        ("act", c_enum),
        ("allow_tf32", c_int),
        ("bias", POINTER(TensorDesc)),
        ("residual", POINTER(TensorDesc)),
    ]


class AttentionDesc(Structure):
    _c_name_ = "pk_attention_desc"
    _fields_ = [
        ("scale", c_float),
        ("causal", c_int),
        ("window_left", c_int64),
        ("window_right", c_int64),
        ("seqlens_q", POINTER(c_int32)),
        ("seqlens_kv", POINTER(c_int32)),
        ("lse", POINTER(TensorDesc)),
        ("device_seqlens_q", POINTER(TensorDesc)),
        ("device_seqlens_kv", POINTER(TensorDesc)),
    ]


class NormDesc(Structure):
    _c_name_ = "pk_norm_desc"
    _fields_ = [
        ("eps", c_float),
        ("residual", POINTER(TensorDesc)),
        ("residual_out", POINTER(TensorDesc)),
    ]


class RopeDesc(Structure):
    _c_name_ = "pk_rope_desc"
    _fields_ = [
        ("theta", c_float),
        ("rotary_dim", c_int64),
        ("interleaved", c_int),
        ("positions", POINTER(c_int32)),
        ("inv_freq", POINTER(TensorDesc)),
        ("device_positions", POINTER(TensorDesc)),
    ]


class ChainStep(Structure):
    _c_name_ = "pk_chain_step"
    _fields_ = [
        ("op", c_enum),
        ("a", c_int),
        ("b", c_int),
        ("imm", c_float),
    ]


class ChainDesc(Structure):
    _c_name_ = "pk_chain_desc"
    _fields_ = [
        ("n_inputs", c_int),
        ("inputs", POINTER(TensorDesc)),
        ("n_steps", c_int),
        ("steps", POINTER(ChainStep)),
    ]


# ---- DLPack (api/pk_dlpack.h)

class DLDevice(Structure):
    _c_name_ = "pk_dl_device"
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _c_name_ = "pk_dl_dtype"
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _c_name_ = "pk_dl_tensor"
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


# The deleters take the struct's own address; void * keeps ctypes from
# building a Structure around it on every call.
DL_DELETER = ctypes.CFUNCTYPE(None, c_void_p)


class DLManagedTensor(Structure):
    _c_name_ = "pk_dl_managed"
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", c_void_p),
        ("deleter", c_void_p),
    ]


class DLPackVersion(Structure):
    _c_name_ = "pk_dl_version"
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    _c_name_ = "pk_dl_managed_versioned"
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", c_void_p),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


ALL_STRUCTS = (
    DeviceInfo, TensorDesc, GemmDesc, AttentionDesc, NormDesc, RopeDesc, ChainStep, ChainDesc,
    DLDevice, DLDataType, DLTensor, DLManagedTensor, DLPackVersion, DLManagedTensorVersioned,
)

# Header constants the layout test also compares with the C preprocessor's.
CONSTANTS = {
    "PK_MAX_DIMS": MAX_DIMS,
    "PK_CHAIN_MAX_INPUTS": CHAIN_MAX_INPUTS,
    "PK_CHAIN_MAX_STEPS": CHAIN_MAX_STEPS,
    "PK_F32": DTYPES["f32"][0], "PK_F16": DTYPES["f16"][0], "PK_BF16": DTYPES["bf16"][0],
    "PK_I32": DTYPES["i32"][0], "PK_DTYPE_COUNT": len(DTYPES),
    "PK_BACKEND_AUTO": BACKEND["auto"], "PK_BACKEND_REF": BACKEND["ref"],
    "PK_BACKEND_OPENCL": BACKEND["opencl"], "PK_BACKEND_CUDA": BACKEND["cuda"],
    "PK_BACKEND_HIP": BACKEND["hip"],
    "PK_ACT_NONE": ACTIVATIONS["none"], "PK_ACT_RELU": ACTIVATIONS["relu"],
    "PK_ACT_GELU": ACTIVATIONS["gelu"], "PK_ACT_GELU_TANH": ACTIVATIONS["gelu_tanh"],
    "PK_ACT_SILU": ACTIVATIONS["silu"],
    "PK_CHAIN_ADD": CHAIN_OP["add"], "PK_CHAIN_ADD_IMM": CHAIN_OP["add_imm"],
    "PK_CHAIN_NEG": CHAIN_OP["neg"], "PK_CHAIN_SILU": CHAIN_OP["silu"],
    "PK_CHAIN_OP_COUNT": len(CHAIN_OPS),
    "PK_DL_CPU": DL_CPU, "PK_DL_CUDA": DL_CUDA, "PK_DL_CUDA_HOST": DL_CUDA_HOST,
    "PK_DL_OPENCL": DL_OPENCL, "PK_DL_ROCM": DL_ROCM, "PK_DL_ROCM_HOST": DL_ROCM_HOST,
    "PK_DL_CUDA_MANAGED": DL_CUDA_MANAGED,
    "PK_DL_FLOAT": DL_FLOAT, "PK_DL_BFLOAT": DL_BFLOAT, "PK_DL_INT": DL_INT,
    "PK_DL_FLAG_READ_ONLY": DL_FLAG_READ_ONLY,
    "PK_STATUS_COUNT": len(STATUS_NAMES),
}
CONSTANTS.update({name: i for i, name in enumerate(STATUS_NAMES)})
