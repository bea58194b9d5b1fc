/* build_helper.c: `weft-build-helper`, the program Weft runs to build in
 * a process of its own under WEFT_BUILD_MEMORY (core/build_isolated.h).
 * All of it is in the library, which it is linked with, so that it builds
 * exactly as the library that starts it would. */
int weft_build_helper_main(int argc, char **argv);

int main(int argc, char **argv) { return weft_build_helper_main(argc, argv); }
