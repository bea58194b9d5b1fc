/* native_user.c: doubles 64 ints through Weft's native API; prints
 * "native: ok" when every one is right. */
#include <stdio.h>

#include <weft/weft.h>

static const char *source =
    "__kernel void twice(__global int *a) {\n"
    "  a[get_global_id(0)] *= 2;\n"
    "}\n";

int main(void) {
  weft_device *dev;
  weft_context *ctx;
  weft_program *p;
  weft_kernel *k;
  weft_buffer *b;
  int data[64];
  for (int i = 0; i < 64; i++) data[i] = i;
  size_t global = 64;
  if (weft_device_get(0, &dev) || weft_context_create(dev, &ctx) ||
      weft_program_create(ctx, source, 0, &p) ||
      weft_program_build(p, NULL) ||
      weft_kernel_create(p, "twice", &k) ||
      weft_buffer_create(ctx, sizeof data, 0, NULL, &b) ||
      weft_buffer_write(b, 0, sizeof data, data) ||
      weft_kernel_set_arg_buffer(k, 0, b) ||
      weft_kernel_launch(k, 1, NULL, &global, NULL) ||
      weft_buffer_read(b, 0, sizeof data, data)) {
    fprintf(stderr, "native: a Weft call failed\n");
    return 1;
  }
  for (int i = 0; i < 64; i++)
    if (data[i] != 2 * i) {
      fprintf(stderr, "native: a[%d] = %d, not %d\n", i, data[i], 2 * i);
      return 1;
    }
  printf("native: ok (weft %s)\n", weft_version());
  return 0;
}
