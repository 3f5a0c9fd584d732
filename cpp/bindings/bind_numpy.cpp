// The NumPy bridge, through NumPy's C API (the only file that includes it).
#define PY_ARRAY_UNIQUE_SYMBOL FN_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "bindings/convert.h"
#include "bindings/py_types.h"

namespace fn {

void init_numpy() {
  if (_import_array() < 0) throw py::error_already_set();
}

namespace {

int npy_type(DType d) {
  switch (d) {
    case DType::Bool: return NPY_BOOL;
    case DType::Int8: return NPY_INT8;
    case DType::UInt8: return NPY_UINT8;
    case DType::Int16: return NPY_INT16;
    case DType::Int32: return NPY_INT32;
    case DType::Int64: return NPY_INT64;
    case DType::UInt16: return NPY_UINT16;
    case DType::UInt32: return NPY_UINT32;
    case DType::UInt64: return NPY_UINT64;
    case DType::Float16: return NPY_HALF;
    case DType::Float32: return NPY_FLOAT32;
    case DType::Float64: return NPY_FLOAT64;
    case DType::Complex64: return NPY_COMPLEX64;
    case DType::Complex128: return NPY_COMPLEX128;
    default: return -1;
  }
}

bool dtype_from_npy(int t, DType* out) {
  switch (t) {
    case NPY_BOOL: *out = DType::Bool; return true;
    case NPY_INT8: *out = DType::Int8; return true;
    case NPY_UINT8: *out = DType::UInt8; return true;
    case NPY_INT16: *out = DType::Int16; return true;
    case NPY_INT32: *out = DType::Int32; return true;
    case NPY_INT64: *out = DType::Int64; return true;
    case NPY_LONGLONG: *out = DType::Int64; return true;
    case NPY_UINT16: *out = DType::UInt16; return true;
    case NPY_UINT32: *out = DType::UInt32; return true;
    case NPY_UINT64: *out = DType::UInt64; return true;
    case NPY_ULONGLONG: *out = DType::UInt64; return true;
    case NPY_HALF: *out = DType::Float16; return true;
    case NPY_FLOAT32: *out = DType::Float32; return true;
    case NPY_FLOAT64: *out = DType::Float64; return true;
    case NPY_COMPLEX64: *out = DType::Complex64; return true;
    case NPY_COMPLEX128: *out = DType::Complex128; return true;
    default: return false;
  }
}

// Holds a buffer alive for as long as a NumPy array views it.
void release_buffer(PyObject* capsule) {
  std::unique_ptr<std::shared_ptr<Buffer>> owned(
      static_cast<std::shared_ptr<Buffer>*>(PyCapsule_GetPointer(capsule, "fn.buffer")));
}

}  // namespace

bool is_ndarray(py::handle obj) { return PyArray_Check(obj.ptr()); }
bool is_numpy_scalar(py::handle obj) { return PyArray_CheckScalar(obj.ptr()) && !PyArray_Check(obj.ptr()); }

py::object tensor_to_numpy(const EagerPtr& t, bool writeable_view) {
  const Shape& s = t->shape();
  std::vector<npy_intp> dims(s.dims().begin(), s.dims().end());
  int nd = static_cast<int>(dims.size());
  if (t->dtype() == DType::String) {
    if (nd == 0) return py::bytes(t->strings()[0]);
    PyObject* arr = PyArray_SimpleNew(nd, dims.data(), NPY_OBJECT);
    if (!arr) throw py::error_already_set();
    auto** data = static_cast<PyObject**>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(arr)));
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      const std::string& str = t->strings()[i];
      data[i] = PyBytes_FromStringAndSize(str.data(), static_cast<Py_ssize_t>(str.size()));
    }
    return py::reinterpret_steal<py::object>(arr);
  }
  if (t->dtype() == DType::BFloat16) {  // NumPy has no bfloat16: widen to float32
    return tensor_to_numpy(cast_tensor(t, DType::Float32), writeable_view);
  }
  int type = npy_type(t->dtype());
  if (type < 0) throw_error(Code::InvalidArgument, "Cannot convert a ", dtype_name(t->dtype()), " tensor to NumPy");
  // The capsule owns a reference to the buffer; NumPy owns the capsule as the array's base.
  auto holder = std::make_unique<std::shared_ptr<Buffer>>(t->buffer());
  PyObject* capsule = PyCapsule_New(holder.get(), "fn.buffer", release_buffer);
  if (!capsule) throw py::error_already_set();
  holder.release();  // now owned by the capsule
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writeable_view ? NPY_ARRAY_WRITEABLE : 0);
  PyObject* arr =
      PyArray_New(&PyArray_Type, nd, dims.data(), type, nullptr, const_cast<void*>(t->raw()), 0, flags, nullptr);
  if (!arr) {
    Py_DECREF(capsule);
    throw py::error_already_set();
  }
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), capsule) < 0) {
    Py_DECREF(arr);
    throw py::error_already_set();
  }
  if (nd == 0) {  // TensorFlow returns NumPy scalars for 0-d tensors
    PyObject* scalar = PyArray_Return(reinterpret_cast<PyArrayObject*>(arr));
    return py::reinterpret_steal<py::object>(scalar);
  }
  return py::reinterpret_steal<py::object>(arr);
}

EagerPtr tensor_from_ndarray(py::handle obj, bool copy) {
  PyArrayObject* arr = reinterpret_cast<PyArrayObject*>(obj.ptr());
  int type = PyArray_TYPE(arr);
  std::vector<int64_t> dims(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
  Shape shape(dims);
  if (type == NPY_OBJECT || type == NPY_STRING || type == NPY_UNICODE) {
    auto t = make_tensor(DType::String, shape);
    py::object flat = py::reinterpret_borrow<py::object>(obj).attr("ravel")();
    int64_t i = 0;
    for (py::handle item : flat) {
      if (PyBytes_Check(item.ptr()))
        t->strings()[i++] = py::cast<std::string>(py::bytes(py::reinterpret_borrow<py::object>(item)));
      else if (PyUnicode_Check(item.ptr()))
        t->strings()[i++] = py_utf8(item);
      else
        throw_error(Code::ValueError, "Failed to convert a NumPy array to a Tensor (Unsupported object type ",
                    std::string(py::str(py::type::of(item).attr("__name__"))), ").");
    }
    return t;
  }
  DType d;
  if (!dtype_from_npy(type, &d))
    throw_error(Code::TypeError, "Unsupported NumPy dtype ",
                std::string(py::str(py::reinterpret_borrow<py::object>(obj).attr("dtype"))));
  bool direct = PyArray_IS_C_CONTIGUOUS(arr) && PyArray_ISALIGNED(arr) && PyArray_ISNOTSWAPPED(arr);
  if (!copy && direct) {
    // Zero-copy: the tensor's buffer keeps the array alive (the GIL is taken to release it).
    Py_INCREF(obj.ptr());
    std::shared_ptr<void> owner(obj.ptr(), [](void* p) {
      py::gil_scoped_acquire gil;
      Py_DECREF(static_cast<PyObject*>(p));
    });
    auto buf = Buffer::wrap(PyArray_DATA(arr), static_cast<size_t>(PyArray_NBYTES(arr)), std::move(owner));
    return std::make_shared<EagerTensor>(d, shape, std::move(buf));
  }
  auto t = make_tensor(d, shape);
  // Byte-swapped, misaligned or strided arrays: NumPy converts to a native, contiguous copy
  // (the descriptor must be given: with none, NOTSWAPPED keeps the array's own byte order).
  PyObject* src = direct ? (Py_INCREF(obj.ptr()), obj.ptr())
                         : PyArray_FromAny(obj.ptr(), PyArray_DescrFromType(type), 0, 0,
                                           NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, nullptr);
  if (!src) throw py::error_already_set();
  std::memcpy(t->raw(), PyArray_DATA(reinterpret_cast<PyArrayObject*>(src)),
              static_cast<size_t>(PyArray_NBYTES(reinterpret_cast<PyArrayObject*>(src))));
  Py_DECREF(src);
  return t;
}

}  // namespace fn
