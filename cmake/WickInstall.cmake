# WickInstall.cmake: `cmake --install` lays out lib/, include/wick/ and lib/cmake/wick so that
# find_package(wick CONFIG REQUIRED) gives the target wick::wick.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS wick EXPORT wickTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir include core/include autograd/include nn/include optim/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(EXPORT wickTargets NAMESPACE wick:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wick)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/wickConfig.cmake.in
  ${PROJECT_BINARY_DIR}/wickConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wick)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/wickConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/wickConfig.cmake ${PROJECT_BINARY_DIR}/wickConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wick)
