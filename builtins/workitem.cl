/*
 * Work-item functions (OpenCL C 3.0, section 6.15.1).
 *
 * They are written over a handful of primitives that the JIT replaces in each
 * kernel: __weft_local_id becomes the work-group loop's induction variable and
 * the others become loads from the work-group context. Dimensions at or above
 * 3 return the values the specification gives for unused dimensions.
 */
#include "builtins.h"

size_t __weft_local_id(uint dim) __attribute__((const));
size_t __weft_group_id(uint dim) __attribute__((const));
size_t __weft_local_size(uint dim) __attribute__((const));
size_t __weft_enqueued_local_size(uint dim) __attribute__((const));
size_t __weft_global_size(uint dim) __attribute__((const));
size_t __weft_global_offset(uint dim) __attribute__((const));
size_t __weft_num_groups(uint dim) __attribute__((const));
uint __weft_work_dim(void) __attribute__((const));

uint WEFT_OVERLOAD get_work_dim(void) { return __weft_work_dim(); }

size_t WEFT_OVERLOAD get_global_size(uint d) {
  return d < 3 ? __weft_global_size(d) : 1;
}

size_t WEFT_OVERLOAD get_global_id(uint d) {
  return d < 3 ? __weft_group_id(d) * __weft_enqueued_local_size(d) +
                     __weft_local_id(d) + __weft_global_offset(d)
               : 0;
}

size_t WEFT_OVERLOAD get_local_size(uint d) {
  return d < 3 ? __weft_local_size(d) : 1;
}

size_t WEFT_OVERLOAD get_enqueued_local_size(uint d) {
  return d < 3 ? __weft_enqueued_local_size(d) : 1;
}

size_t WEFT_OVERLOAD get_local_id(uint d) {
  return d < 3 ? __weft_local_id(d) : 0;
}

size_t WEFT_OVERLOAD get_num_groups(uint d) {
  return d < 3 ? __weft_num_groups(d) : 1;
}

size_t WEFT_OVERLOAD get_group_id(uint d) {
  return d < 3 ? __weft_group_id(d) : 0;
}

size_t WEFT_OVERLOAD get_global_offset(uint d) {
  return d < 3 ? __weft_global_offset(d) : 0;
}

size_t WEFT_OVERLOAD get_global_linear_id(void) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  return (z * get_global_size(1) + y) * get_global_size(0) + x;
}

size_t WEFT_OVERLOAD get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) *
             get_local_size(0) +
         get_local_id(0);
}
