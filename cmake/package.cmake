# package.cmake: `cpack -G DEB` in the build folder makes weft_VERSION_ARCH.deb
# (scripts/package.sh runs it): the same files as `cmake --install` under
# /usr, the ICD file in /etc/OpenCL/vendors, with the Debian packages the
# binaries need found by dpkg-shlibdeps, plus Clang's resource headers that
# the JIT reads at run time (libclang-common-19-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME weft)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "OpenCL C kernels on the CPU and CUDA GPUs, with a debugger's checks")
set(CPACK_PACKAGE_DESCRIPTION
  "Weft runs OpenCL C kernels on the CPU, and on NVIDIA GPUs through the
CUDA driver when one is present: a native C API, an OpenCL 3.0 platform
(an ICD for ocl-icd), work-groups that wait for each other, check mode
and schedule exploration.")
set(CPACK_PACKAGE_CONTACT "Weft developers <weft@weft.invalid>")
# Installed as under the prefix /usr, into the package's root: the ICD file
# goes to /etc and names /usr/... (cmake/install.cmake).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang-common-19-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ocl-icd-libopencl1")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ocl-icd-opencl-dev, python3-matplotlib")
# A shlibs file, and ldconfig after installing and removing (the
# libraries are in /usr/lib).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
