# Run by `cmake --install` (api/CMakeLists.txt): writes earshot.pc for the prefix given there (not
# only the configured one), its directories under ${prefix} where they are relative.
# In (set by install(CODE)): EARSHOT_PC_TEMPLATE, EARSHOT_PC_OUT, EARSHOT_VERSION,
# EARSHOT_INCLUDEDIR, EARSHOT_LIBDIR (as GNUInstallDirs gives them).
cmake_path(SET prefix NORMALIZE "${CMAKE_INSTALL_PREFIX}/")
string(REGEX REPLACE "(.)/$" "\\1" prefix "${prefix}")
set(version "${EARSHOT_VERSION}")
foreach(dir includedir libdir)
  string(TOUPPER "EARSHOT_${dir}" var)
  if(IS_ABSOLUTE "${${var}}")
    set(${dir} "${${var}}")
  else()
    set(${dir} "\${prefix}/${${var}}")
  endif()
endforeach()
# Written for this install's destination alone (installs into others may run at the same time).
string(MD5 install_key "$ENV{DESTDIR}|${prefix}")
set(pc "${EARSHOT_PC_OUT}/installed/${install_key}/earshot.pc")
configure_file("${EARSHOT_PC_TEMPLATE}" "${pc}" @ONLY)
if(IS_ABSOLUTE "${EARSHOT_LIBDIR}")
  set(pc_dir "${EARSHOT_LIBDIR}/pkgconfig")
else()
  set(pc_dir "${prefix}/${EARSHOT_LIBDIR}/pkgconfig")
endif()
file(INSTALL DESTINATION "${pc_dir}" TYPE FILE FILES "${pc}")
