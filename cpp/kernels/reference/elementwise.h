// Scalar functors of the elementwise ops with TensorFlow's semantics: wrapping integer
// arithmetic, floor division/modulo for negatives, NaN-propagating max/min, banker's rounding.
// The reference loops (ref::binary / ref::unary) apply them; they are the oracle the oneDNN
// kernels are tested against. `T` is the arithmetic type (half types compute in float).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace fn {
namespace ref {

template <typename T>
constexpr bool is_int_v = std::is_integral<T>::value && !std::is_same<T, bool>::value;
template <typename T>
constexpr bool is_signed_int_v = is_int_v<T>&& std::is_signed<T>::value;

// Integer arithmetic that wraps like TensorFlow's (two's complement) without C++ overflow UB.
template <typename T>
T wrap_add(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
T wrap_sub(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(a * b);
  }
}
template <typename T>
T wrap_neg(T a) {
  return wrap_sub(T(0), a);
}

// ---- binary ----
struct Add {
  template <typename T>
  static T apply(T a, T b) {
    return wrap_add(a, b);
  }
};
struct Sub {
  template <typename T>
  static T apply(T a, T b) {
    return wrap_sub(a, b);
  }
};
struct Mul {
  template <typename T>
  static T apply(T a, T b) {
    return wrap_mul(a, b);
  }
};
struct RealDiv {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T>)
      return b == 0 ? T(0) : static_cast<T>(a / b);  // no int kernel
    else
      return static_cast<T>(a / b);
  }
};
// Floor division; integer division by zero is checked by the kernel before the loop.
struct FloorDiv {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T>) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return wrap_neg(a);  // INT_MIN / -1 wraps (and must not trap)
        T q = static_cast<T>(a / b);
        if ((a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
        return q;
      } else {
        return static_cast<T>(a / b);
      }
    } else if constexpr (std::is_same<T, bool>::value) {
      return a;
    } else {
      return std::floor(a / b);
    }
  }
};
struct FloorMod {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T>) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return T(0);
        T r = static_cast<T>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return r;
      } else {
        return static_cast<T>(a % b);
      }
    } else if constexpr (std::is_same<T, bool>::value) {
      return false;
    } else {
      T r = std::fmod(a, b);
      return (r != 0 && ((b < 0) != (r < 0))) ? static_cast<T>(r + b) : r;
    }
  }
};
// float x^n for a small integer n, from the product in double (x^2 is exact there, x^3 and x^4
// are rounded once to 53 bits, then to float): the correctly rounded power but for double-rounding
// ties, where libm's powf (0.82 ulp) is not always. Loop-invariant n lets callers vectorise it
// (the gelu's x^3 and its gradient's x^2), where powf is a scalar call.
constexpr int kMaxSmallPow = 4;
inline bool small_int_exponent(float b, int* n) {
  if (!(b >= -kMaxSmallPow && b <= kMaxSmallPow) || b != static_cast<float>(static_cast<int>(b))) return false;
  *n = static_cast<int>(b);
  return true;
}
template <int N>
inline float pow_small_int(float x) {
  static_assert(N >= -kMaxSmallPow && N <= kMaxSmallPow, "small exponent");
  const double d = x;
  double p = 1.0;
  for (int k = 0; k < (N < 0 ? -N : N); ++k) p = k == 0 ? d : p * d;
  return static_cast<float>(N < 0 ? 1.0 / p : p);
}
inline float pow_small_int(float x, int n) {
  switch (n) {
    case -4: return pow_small_int<-4>(x);
    case -3: return pow_small_int<-3>(x);
    case -2: return pow_small_int<-2>(x);
    case -1: return pow_small_int<-1>(x);
    case 0: return pow_small_int<0>(x);
    case 1: return pow_small_int<1>(x);
    case 2: return pow_small_int<2>(x);
    case 3: return pow_small_int<3>(x);
    default: return pow_small_int<4>(x);
  }
}

struct Pow {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T>) {  // b >= 0 is checked by the kernel
      T result = 1, base = a;
      for (auto e = b; e > 0; e = static_cast<T>(e >> 1)) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
      }
      return result;
    } else if constexpr (std::is_same<T, bool>::value) {
      return a || !b;
    } else {
      if constexpr (std::is_same<T, float>::value) {
        int n;
        if (small_int_exponent(b, &n)) return pow_small_int(a, n);
      }
      return std::pow(a, b);
    }
  }
};
struct Maximum {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};
struct Minimum {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};
struct SquaredDifference {
  template <typename T>
  static T apply(T a, T b) {
    T d = wrap_sub(a, b);
    return wrap_mul(d, d);
  }
};
struct Equal {
  template <typename T>
  static bool apply(T a, T b) {
    return a == b;
  }
};
struct NotEqual {
  template <typename T>
  static bool apply(T a, T b) {
    return a != b;
  }
};
struct Less {
  template <typename T>
  static bool apply(T a, T b) {
    return a < b;
  }
};
struct LessEqual {
  template <typename T>
  static bool apply(T a, T b) {
    return a <= b;
  }
};
struct Greater {
  template <typename T>
  static bool apply(T a, T b) {
    return a > b;
  }
};
struct GreaterEqual {
  template <typename T>
  static bool apply(T a, T b) {
    return a >= b;
  }
};
struct LogicalAnd {
  template <typename T>
  static T apply(T a, T b) {
    return static_cast<T>(a && b);
  }
};
struct LogicalOr {
  template <typename T>
  static T apply(T a, T b) {
    return static_cast<T>(a || b);
  }
};
struct BitwiseAnd {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T> || std::is_same<T, bool>::value)
      return static_cast<T>(a & b);
    else
      return a;
  }
};
struct BitwiseOr {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T> || std::is_same<T, bool>::value)
      return static_cast<T>(a | b);
    else
      return a;
  }
};
struct BitwiseXor {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_int_v<T> || std::is_same<T, bool>::value)
      return static_cast<T>(a ^ b);
    else
      return a;
  }
};

// ---- unary ----
struct Neg {
  template <typename T>
  static T apply(T x) {
    return wrap_neg(x);
  }
};
struct Abs {
  template <typename T>
  static T apply(T x) {
    if constexpr (std::is_floating_point<T>::value)
      return std::fabs(x);
    else
      return x < T(0) ? wrap_neg(x) : x;
  }
};
struct Sign {
  template <typename T>
  static T apply(T x) {
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(x)) return x;
    }
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Square {
  template <typename T>
  static T apply(T x) {
    return wrap_mul(x, x);
  }
};
struct Sqrt {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::sqrt(x));
  }
};
struct Rsqrt {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(T(1) / std::sqrt(x));
  }
};
struct Exp {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::exp(x));
  }
};
struct Log {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::log(x));
  }
};
struct Log1p {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::log1p(x));
  }
};
struct Tanh {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::tanh(x));
  }
};
struct Sigmoid {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(T(1) / (T(1) + std::exp(-x)));
  }
};
struct Relu {
  template <typename T>
  static T apply(T x) {
    return x > T(0) ? x : (x == x ? T(0) : x);
  }
};
struct Relu6 {
  template <typename T>
  static T apply(T x) {
    if (!(x == x)) return x;  // NaN stays NaN
    return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
  }
};
struct Elu {
  template <typename T>
  static T apply(T x) {
    return x < T(0) ? static_cast<T>(std::expm1(x)) : x;
  }
};
// TensorFlow's softplus: thresholds at log(epsilon) + 2 keep it exact and overflow-free.
struct Softplus {
  template <typename T>
  static T apply(T x) {
    const T threshold = static_cast<T>(std::log(std::numeric_limits<T>::epsilon()) + T(2));
    if (x > -threshold) return x;
    if (x < threshold) return static_cast<T>(std::exp(x));
    return static_cast<T>(std::log1p(std::exp(x)));
  }
};
struct Sin {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::sin(x));
  }
};
struct Cos {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::cos(x));
  }
};
struct Floor {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::floor(x));
  }
};
struct Ceil {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(std::ceil(x));
  }
};
// Banker's rounding (half to even), as TensorFlow's Round; integers pass through.
struct Round {
  template <typename T>
  static T apply(T x) {
    if constexpr (std::is_floating_point<T>::value)
      return std::nearbyint(x);
    else
      return x;
  }
};
struct Reciprocal {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(T(1) / x);
  }
};
struct IsNan {
  template <typename T>
  static bool apply(T x) {
    return x != x;
  }
};
struct IsInf {
  template <typename T>
  static bool apply(T x) {
    if constexpr (std::is_floating_point<T>::value)
      return std::isinf(x);
    else
      return false;
  }
};
struct IsFinite {
  template <typename T>
  static bool apply(T x) {
    if constexpr (std::is_floating_point<T>::value)
      return std::isfinite(x);
    else
      return true;
  }
};
struct LogicalNot {
  template <typename T>
  static T apply(T x) {
    return static_cast<T>(!x);
  }
};
struct Invert {
  template <typename T>
  static T apply(T x) {
    if constexpr (is_int_v<T>)
      return static_cast<T>(~x);
    else if constexpr (std::is_same<T, bool>::value)
      return !x;
    else
      return x;
  }
};

}  // namespace ref
}  // namespace fn
