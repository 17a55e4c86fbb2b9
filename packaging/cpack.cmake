# The Debian package (issue 51): `cpack -G DEB` in a build directory writes
# earshot_<version>_<arch>.deb of what `cmake --install --prefix /usr` installs (see
# config/install_paths.cmake for /etc and the systemd directories), its Depends computed from the
# binaries by dpkg-shlibdeps, the config a conffile, and maintainer scripts in debhelper's manner
# (packaging/debian/). lintian's remarks on it: docs/packaging.md.
set(EARSHOT_PACKAGE_MAINTAINER "earshot maintainers <earshot@example.org>"
    CACHE STRING "Maintainer field of the .deb: name <email>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME earshot)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the earshot authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "on-device speech pipeline: VAD, wake word, speech-to-text")
# The extended description, lines under 80 characters (lintian).
set(CPACK_PACKAGE_DESCRIPTION "earshot listens to a microphone with little CPU: a voice activity
detector gates a wake-word spotter, which hands the request that follows to
speech-to-text (pocketsphinx). earshotd runs it as a sandboxed systemd service
that publishes its events on the system D-Bus (io.earshot.Pipeline1); earshot
runs it over recordings; earshot-wyoming serves it over the Wyoming protocol;
libearshot embeds it in an application. Everything runs offline, on the device.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_CONTACT ${EARSHOT_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${EARSHOT_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)          # earshot_0.1.0_amd64.deb
# A cross build packages for its target (cmake/aarch64-linux-gnu.cmake: earshot_0.1.0_arm64.deb).
# dpkg-shlibdeps needs nothing more: it takes the libraries whose ELF ABI is the binaries' (the
# :arm64 packages' in /usr/lib/aarch64-linux-gnu) and their packages' symbols files. Natively,
# dpkg's architecture.
if(CMAKE_CROSSCOMPILING AND CMAKE_LIBRARY_ARCHITECTURE)
  execute_process(COMMAND dpkg-architecture -t${CMAKE_LIBRARY_ARCHITECTURE} -qDEB_HOST_ARCH
                  OUTPUT_VARIABLE CPACK_DEBIAN_PACKAGE_ARCHITECTURE OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET COMMAND_ERROR_IS_FATAL ANY)
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)                    # the prefix CPACK_SET_DESTDIR installs under
set(CPACK_SET_DESTDIR ON)                         # /etc and /lib/systemd go into the package, not /
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)            # Depends from the binaries (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)      # the shlibs file of libearshot.so.0
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# What the binaries' libraries do not say: Debian's en-us model (the STT's default), the
# sysusers and systemd helpers the maintainer scripts call, the bus the daemon joins.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "pocketsphinx-en-us, systemd | systemd-standalone-sysusers | systemd-sysusers, init-system-helpers (>= 1.54~), dbus")
# espeak-ng: the pronunciation of a command set's word the dictionary lacks (and `earshot
# pronounce`); without it such a set is refused, naming the word.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "espeak-ng")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/debian/conffiles ${CMAKE_CURRENT_LIST_DIR}/debian/postinst
    ${CMAKE_CURRENT_LIST_DIR}/debian/prerm ${CMAKE_CURRENT_LIST_DIR}/debian/postrm
    ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)      # ldconfig, for libearshot.so.0
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The tests and benchmarks are not installed; the package is the install() rules' alone.
include(CPack)
