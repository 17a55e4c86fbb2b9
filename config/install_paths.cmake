# Run by `cmake --install` (see config/CMakeLists.txt), so that the prefix given there is followed
# and not only the configured one: installs the config, the systemd units and the sysusers entry
# where that prefix wants them, the units naming the installed programs and config.
#   prefix /usr:       /etc/earshot, and the units and sysusers where pkg-config's systemd says
#                      (Debian 12: /lib/systemd/system, /usr/lib/sysusers.d)
#   prefix /opt/NAME:  /etc/opt/NAME/earshot (as GNUInstallDirs), PREFIX/lib/systemd/system, ...
#   any other prefix:  PREFIX/etc/earshot, PREFIX/lib/systemd/system, PREFIX/lib/sysusers.d
# An absolute directory configured (CMAKE_INSTALL_SYSCONFDIR, EARSHOT_INSTALL_UNITDIR,
# EARSHOT_INSTALL_SYSUSERSDIR) is taken as it is; a relative one is under the prefix.
# The config is EARSHOT_INSTALLED_CONFIG (packaging/gen_config.py's), with an empty drop-in
# directory beside it (earshot.toml.d).
# In (set by install(CODE)): EARSHOT_INSTALLED_CONFIG, EARSHOT_CONFIG_SOURCE, EARSHOT_CONFIG_BINARY, EARSHOT_SYSCONFDIR,
# EARSHOT_BINDIR, EARSHOT_SBINDIR, EARSHOT_DOCDIR, EARSHOT_UNIT_DIR, EARSHOT_INSTALL_SYSUSERSDIR,
# EARSHOT_UNITDIR_USR, EARSHOT_SYSUSERSDIR_USR.
cmake_path(SET prefix NORMALIZE "${CMAKE_INSTALL_PREFIX}/")
string(REGEX REPLACE "(.)/$" "\\1" prefix "${prefix}")

# earshot_under_prefix(VAR DIR): DIR if absolute, else PREFIX/DIR.
function(earshot_under_prefix var dir)
  if(IS_ABSOLUTE "${dir}")
    set(${var} "${dir}" PARENT_SCOPE)
  else()
    set(${var} "${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# earshot_systemd_dir(VAR CONFIGURED USR_DIR DEFAULT): the configured directory when one is, else
# pkg-config's for prefix /usr, else PREFIX/DEFAULT.
function(earshot_systemd_dir var configured usr_dir default)
  if(NOT configured STREQUAL "")
    earshot_under_prefix(dir "${configured}")
  elseif(prefix STREQUAL "/usr" AND NOT usr_dir STREQUAL "")
    set(dir "${usr_dir}")
  else()
    set(dir "${prefix}/${default}")
  endif()
  set(${var} "${dir}" PARENT_SCOPE)
endfunction()

if(IS_ABSOLUTE "${EARSHOT_SYSCONFDIR}")
  set(sysconfdir "${EARSHOT_SYSCONFDIR}")
elseif(prefix STREQUAL "/usr")
  set(sysconfdir "/etc")
elseif(prefix MATCHES "^/opt/([^/]+)$")
  set(sysconfdir "/etc/opt/${CMAKE_MATCH_1}")
else()
  set(sysconfdir "${prefix}/${EARSHOT_SYSCONFDIR}")
endif()
earshot_under_prefix(bindir "${EARSHOT_BINDIR}")
earshot_under_prefix(sbindir "${EARSHOT_SBINDIR}")
earshot_under_prefix(docdir "${EARSHOT_DOCDIR}")
earshot_systemd_dir(unitdir "${EARSHOT_UNIT_DIR}" "${EARSHOT_UNITDIR_USR}" lib/systemd/system)
earshot_systemd_dir(sysusersdir "${EARSHOT_INSTALL_SYSUSERSDIR}" "${EARSHOT_SYSUSERSDIR_USR}" lib/sysusers.d)

file(INSTALL DESTINATION "${sysconfdir}/earshot" TYPE FILE FILES "${EARSHOT_INSTALLED_CONFIG}")
file(MAKE_DIRECTORY "${EARSHOT_CONFIG_BINARY}/installed/earshot.toml.d")
file(INSTALL DESTINATION "${sysconfdir}/earshot" TYPE DIRECTORY
     FILES "${EARSHOT_CONFIG_BINARY}/installed/earshot.toml.d")
file(INSTALL DESTINATION "${sysusersdir}" TYPE FILE RENAME earshot.conf
     FILES "${EARSHOT_CONFIG_SOURCE}/earshot.sysusers")
# The units in the source name /usr/sbin, /usr/bin, /etc and /usr/share/doc/earshot; written for
# this install's destination alone (installs into other ones may run at the same time).
string(MD5 install_key "$ENV{DESTDIR}|${prefix}")
foreach(unit_file earshotd.service earshot-wyoming.service)
  file(READ "${EARSHOT_CONFIG_SOURCE}/${unit_file}" unit)
  string(REPLACE "/usr/sbin/" "${sbindir}/" unit "${unit}")
  string(REPLACE "/usr/bin/" "${bindir}/" unit "${unit}")
  string(REPLACE "/etc/earshot/" "${sysconfdir}/earshot/" unit "${unit}")
  string(REPLACE "/usr/share/doc/earshot/" "${docdir}/" unit "${unit}")
  file(WRITE "${EARSHOT_CONFIG_BINARY}/installed/${install_key}/${unit_file}" "${unit}")
  file(INSTALL DESTINATION "${unitdir}" TYPE FILE
       FILES "${EARSHOT_CONFIG_BINARY}/installed/${install_key}/${unit_file}")
endforeach()
