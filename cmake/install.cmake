# install.cmake: what `cmake --install build [--prefix P]` puts under the
# prefix, besides the libraries, headers and helper the folders install:
# the CMake package (lib/cmake/Weft), weft.pc, the man pages, and the ICD
# file under the prefix's etc/OpenCL/vendors naming the installed
# libweft-opencl by absolute path. Everything follows the prefix given at
# install time: the package and weft.pc find it from where they are; the
# ICD file is written when installing.
include(CMakePackageConfigHelpers)

set(WEFT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Weft)
install(EXPORT WeftTargets NAMESPACE Weft:: DESTINATION ${WEFT_CMAKE_DIR})

# The ICD's folder as configure_package_config_file sees it (relative to
# the prefix, as GNUInstallDirs' SYSCONFDIR is unless made absolute).
set(WEFT_ICD_INSTALL_DIR ${CMAKE_INSTALL_SYSCONFDIR}/OpenCL/vendors)
configure_package_config_file(cmake/WeftConfig.cmake.in
  ${CMAKE_BINARY_DIR}/WeftConfig.cmake
  INSTALL_DESTINATION ${WEFT_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR WEFT_ICD_INSTALL_DIR)
# 0.x: a minor release may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/WeftConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/WeftConfig.cmake
  ${CMAKE_BINARY_DIR}/WeftConfigVersion.cmake DESTINATION ${WEFT_CMAKE_DIR})

file(RELATIVE_PATH WEFT_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" WEFT_PC_TO_PREFIX "${WEFT_PC_TO_PREFIX}")
configure_file(cmake/weft.pc.in ${CMAKE_BINARY_DIR}/weft.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/weft.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES doc/weft.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES doc/weft-kernel.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)

# The ICD file, written at install time: its folder and the library's path
# depend on the prefix then. SYSCONFDIR as GNUInstallDirs makes it: /etc
# for the prefixes / and /usr, /etc/opt/... for /opt/..., else PREFIX/etc
# (or the absolute folder CMAKE_INSTALL_SYSCONFDIR names).
install(CODE "
  set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(etc \"${CMAKE_INSTALL_SYSCONFDIR}\")
  if(NOT IS_ABSOLUTE \"\${etc}\")
    if(prefix STREQUAL \"/\" OR prefix STREQUAL \"/usr\")
      set(etc /etc)
    elseif(prefix MATCHES \"^/opt/\")
      set(etc \"/etc\${prefix}\")
    else()
      set(etc \"\${prefix}/\${etc}\")
    endif()
  endif()
  set(lib \"${CMAKE_INSTALL_LIBDIR}\")
  if(NOT IS_ABSOLUTE \"\${lib}\")
    set(lib \"\${prefix}/\${lib}\")
  endif()
  file(WRITE \"${CMAKE_BINARY_DIR}/icd-install/weft.icd\"
    \"\${lib}/libweft-opencl.so.0\\n\")
  file(INSTALL DESTINATION \"\${etc}/OpenCL/vendors\" TYPE FILE
    FILES \"${CMAKE_BINARY_DIR}/icd-install/weft.icd\")
")
