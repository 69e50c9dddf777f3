# test/lib/httpd.sh: the first lines of every httpd.conf a script writes
# for an httpd of its own (the node tests, the benchmarks, the demo), so
# that they load modules and run as the same user the same way. Sourced;
# POSIX sh. The caller adds what its test is about.
#
#   httpd_modules_dir          apxs's LIBEXECDIR (Debian's when apxs says none)
#   httpd_free_port            a free TCP port on 127.0.0.1, chosen by the kernel
#   httpd_conf_head ROOT PIDFILE ERRORLOG MODSO [MODULE...]
#       ServerRoot, PidFile and ErrorLog; User nobody and Group nogroup when
#       run as root (the children must then read ROOT: give them its
#       writable folders), unless HTTPD_CONF_NO_USER=1 (httpd -X); the event MPM, authn_core, authz_core,
#       authz_user, then each MODULE (mime, dir, socache_shmcb, headers,
#       auth_basic, ...: mod_MODULE.so), then mod_hsc from MODSO.

httpd_modules_dir() {
    d=$("${APXS:-apxs}" -q LIBEXECDIR 2>/dev/null) || d=""
    echo "${d:-/usr/lib/apache2/modules}"
}

httpd_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

httpd_conf_head() {
    _root=$1 _pid=$2 _err=$3 _modso=$4
    shift 4
    _mods=$(httpd_modules_dir)
    echo "ServerRoot \"$_root\""
    echo "PidFile \"$_pid\""
    echo "ErrorLog \"$_err\""
    if [ "$(id -u)" = 0 ] && [ "${HTTPD_CONF_NO_USER:-0}" != 1 ]; then
        echo "User nobody"
        echo "Group nogroup"
    fi
    for _m in mpm_event authn_core authz_core authz_user "$@"; do
        echo "LoadModule ${_m}_module $_mods/mod_$_m.so"
    done
    echo "LoadModule hsc_module \"$_modso\""
}
