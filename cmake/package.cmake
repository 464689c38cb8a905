# package.cmake - what `cmake --install` puts beside the libraries so that other projects can build
# with them: the CMake package (find_package(nqueens): the exported targets nqueens::nqueens and
# nqueens::nqueens_json, nqueensConfig.cmake, nqueensConfigVersion.cmake) and the pkg-config files
# nqueens.pc and nqueens-json.pc. Included by the top CMakeLists.txt after src/, whose folders hold
# each target's own install() rule. docs/library.md is the users' side of it.
include(CMakePackageConfigHelpers)

# The CMake package. nqueens_json is an export of its own (src/json), so that the config can leave it
# out where cJSON is missing and still give nqueens::nqueens.
set(NQ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nqueens)
install(EXPORT nqueensTargets NAMESPACE nqueens:: DESTINATION ${NQ_CMAKE_DIR})
install(EXPORT nqueensJsonTargets NAMESPACE nqueens:: DESTINATION ${NQ_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/nqueensConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/nqueensConfig.cmake INSTALL_DESTINATION ${NQ_CMAKE_DIR})
# find_package(nqueens X.Y) accepts X.Y or later within major X.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nqueensConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nqueensConfig.cmake ${PROJECT_BINARY_DIR}/nqueensConfigVersion.cmake
        DESTINATION ${NQ_CMAKE_DIR})

# The pkg-config files. Their prefix must be the one the tree is installed to, which
# `cmake --install --prefix` may set differently from CMAKE_INSTALL_PREFIX at configure time. So each
# is made in two steps: every other value now, into <build>/pkgconfig/<name>.pc.in, and the prefix
# by the install itself, into <build>/pkgconfig/<name>.pc, which it then copies.
foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(NQ_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(NQ_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
set(NQ_PC_PREFIX "@CMAKE_INSTALL_PREFIX@") # left as it is for the install step
foreach(pc IN ITEMS nqueens nqueens-json)
  set(stage ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${stage}.in @ONLY)
  install(CODE "configure_file([[${stage}.in]] [[${stage}]] @ONLY)")
  install(FILES ${stage} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
