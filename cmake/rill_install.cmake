# rill_install.cmake: what `cmake --install` puts under the prefix, so a program can use Rill as a
# library: the public headers (include/rill), one static library per module (lib/librill_*.a),
# the `rill` program (bin), a CMake package (lib/cmake/Rill: find_package(Rill) gives Rill::rill,
# the whole engine, and Rill::<module>) and a pkg-config file (lib/pkgconfig/rill.pc). Both
# packages are relocatable: they find the prefix from where they were installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(rill_module_targets GLOBAL PROPERTY RILL_MODULE_TARGETS)
install(TARGETS ${rill_module_targets} rill_engine EXPORT RillTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET rill)
  install(TARGETS rill RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(RILL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Rill)
install(EXPORT RillTargets NAMESPACE Rill:: DESTINATION ${RILL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RillConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/RillConfig.cmake
                              INSTALL_DESTINATION ${RILL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RillConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RillConfig.cmake ${PROJECT_BINARY_DIR}/RillConfigVersion.cmake
        DESTINATION ${RILL_CMAKE_DIR})

# rill.pc: the module libraries highest layer first (static linking resolves left to right),
# then what they need.
set(RILL_PC_LIBS "")
set(layers_top_down ${RILL_LAYERS})
list(REVERSE layers_top_down)
foreach(m ${layers_top_down})
  if(TARGET rill_${m})
    get_target_property(type rill_${m} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      string(APPEND RILL_PC_LIBS " -lrill_${m}")
    endif()
  endif()
endforeach()
set(RILL_PC_REQUIRES "libzstd libxxhash libcjson ode lua5.4")
set(RILL_PC_EXTRA "")
if(RILL_RENDER)
  string(APPEND RILL_PC_REQUIRES " glfw3 vulkan")
  # The static shaderc and glslang the renderer compiles plugin shaders with (CMakeLists.txt).
  string(APPEND RILL_PC_EXTRA " -Wl,--start-group -l:libshaderc_combined.a -lglslang"
         " -lMachineIndependent -lOSDependent -lOGLCompiler -lGenericCodeGen -lSPIRV"
         " -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,--end-group -lstdc++ -ldl")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/rill.pc.in ${PROJECT_BINARY_DIR}/rill.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rill.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
