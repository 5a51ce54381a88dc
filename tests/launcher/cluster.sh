# SPDX-License-Identifier: MIT
# A cluster of "hosts" on this machine, for the multi-host launcher tests.
# Sourced by test_hosts.sh.  Needs root (namespaces), sshd, ssh, ip.
#
#   cluster_up N      hosts cn1..cnN: each a network, UTS, mount and PID
#                     namespace with its own host name, an /etc/hosts naming all
#                     of them (bind-mounted there only), address 10.77.0.i on a
#                     veth pair to a bridge in a switch namespace, and its own
#                     sshd with a host key made here; root logs in with a user
#                     key made here.  $CL_SSH is an ssh wrapper that uses them.
#                     Commands over ssh run under /bin/sh with HOME=$CL_DIR/home
#                     (an /etc/passwd bind-mounted in the hosts only), so the
#                     invoking user's shell start-up files (~/.bashrc, which
#                     sshd's bash would run for every command) play no part.
#   on I CMD...       run CMD on host cnI (in its namespaces, same directory)
#   cluster_down      kill everything: killing a namespace's first process
#                     kills all of its processes, and the namespaces go with them
# Everything lives in $CL_DIR (removed by cluster_down).
#
# cluster_up exits 77 (skip) with a message when the machine cannot make
# namespaces (not root, no user namespaces allowed in a container, ...).

CL_DIR=
CL_UNSHARE=()   # unshare processes (root namespace), switch first
CL_PID=()       # first process of each host namespace (index = host number)
CL_SSH=

cluster_skip() {
    echo "SKIP: $*"
    exit 77
}

cluster_up() {
    local n=$1 i
    [ "$(id -u)" = 0 ] || cluster_skip "making hosts needs root (network namespaces); CI runs these tests as root"
    for t in unshare nsenter ip ssh ssh-keygen /usr/sbin/sshd; do
        command -v "$t" >/dev/null || cluster_skip "$t is missing (.ci/run installs openssh-server, openssh-client, iproute2)"
    done
    unshare --net --uts --mount --pid --fork --mount-proc true 2>/dev/null ||
        cluster_skip "this machine cannot make namespaces (unshare --net --uts --mount --pid failed)"
    CL_DIR=$(mktemp -d /tmp/courier-cluster.XXXXXX)
    chmod 755 "$CL_DIR"
    ssh-keygen -q -t ed25519 -N '' -C courier-test -f "$CL_DIR/user_key" || return 1
    cp "$CL_DIR/user_key.pub" "$CL_DIR/authorized_keys"
    : >"$CL_DIR/known_hosts"
    { echo "127.0.0.1 localhost"; for i in $(seq "$n"); do echo "10.77.0.$i cn$i"; done; } >"$CL_DIR/hosts"
    # root's home and shell inside the hosts: an empty home, a shell that reads no start-up file
    mkdir -m 700 "$CL_DIR/home"
    awk -F: -v OFS=: -v home="$CL_DIR/home" '$3 == 0 { $6 = home; $7 = "/bin/sh" } { print }' \
        /etc/passwd >"$CL_DIR/passwd" || return 1
    for i in $(seq "$n"); do
        ssh-keygen -q -t ed25519 -N '' -C "cn$i" -f "$CL_DIR/host_key.$i" || return 1
        echo "cn$i,10.77.0.$i $(cut -d' ' -f1,2 "$CL_DIR/host_key.$i.pub")" >>"$CL_DIR/known_hosts"
        cat >"$CL_DIR/sshd_config.$i" <<EOF
Port 22
ListenAddress 10.77.0.$i
HostKey $CL_DIR/host_key.$i
AuthorizedKeysFile $CL_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
PrintMotd no
LogLevel ERROR
MaxStartups 100:30:200
PermitUserEnvironment no
PermitUserRC no
EOF
    done
    cat >"$CL_DIR/ssh_config" <<EOF
Host *
  IdentityFile $CL_DIR/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $CL_DIR/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  User root
  LogLevel ERROR
  ConnectTimeout 10
EOF
    CL_SSH=$CL_DIR/ssh
    printf '#!/bin/sh\nexec ssh -F %s "$@"\n' "$CL_DIR/ssh_config" >"$CL_SSH"
    chmod 755 "$CL_SSH"
    # The first process of a host: name, mounts, network, sshd; then it waits.
    cat >"$CL_DIR/host_init.sh" <<'EOF'
i=$1 dir=$2
hostname "cn$i"
mount -t tmpfs tmpfs /run && mkdir -p /run/sshd && chmod 755 /run/sshd
mount --bind "$dir/hosts" /etc/hosts
mount --bind "$dir/passwd" /etc/passwd
ip link set lo up
touch "$dir/ns.$i"
while ! ip link show eth0 >/dev/null 2>&1; do sleep 0.02; done
ip addr add "10.77.0.$i/24" dev eth0
ip link set eth0 up
/usr/sbin/sshd -D -e -f "$dir/sshd_config.$i" 2>>"$dir/sshd.$i.log" &
touch "$dir/up.$i"
while :; do wait; sleep 1; done
EOF
    # The switch: a bridge in a namespace of its own.
    unshare --net --pid --fork --kill-child sleep 100000 &
    CL_UNSHARE+=($!)
    local sw
    sw=$(cl_child "${CL_UNSHARE[0]}") || { echo "cluster: no switch namespace"; return 1; }
    nsenter -t "$sw" -n sh -c 'ip link add br0 type bridge && ip link set br0 up && ip link set lo up' || return 1
    for i in $(seq "$n"); do
        unshare --net --uts --mount --pid --fork --kill-child --mount-proc --propagation private \
            bash "$CL_DIR/host_init.sh" "$i" "$CL_DIR" &
        CL_UNSHARE+=($!)
        CL_PID[$i]=$(cl_child "$!") || { echo "cluster: no namespace for cn$i"; return 1; }
        cl_wait_file "$CL_DIR/ns.$i" || { echo "cluster: cn$i did not start"; return 1; }
        ip link add eth0 netns "${CL_PID[$i]}" type veth peer name "p$i" netns "$sw" || return 1
        nsenter -t "$sw" -n ip link set "p$i" master br0 up || return 1
    done
    for i in $(seq "$n"); do
        cl_wait_file "$CL_DIR/up.$i" || { echo "cluster: cn$i has no network"; return 1; }
    done
    # each sshd listens (polled for about 10 s), then must run a command over ssh within 10 s
    for i in $(seq "$n"); do
        local k
        for k in $(seq 200); do
            on 1 timeout 1 bash -c "exec 3<>/dev/tcp/10.77.0.$i/22" 2>/dev/null && break
            sleep 0.05
        done
        local got
        got=$(on 1 timeout 10 "$CL_SSH" "cn$i" 'echo "$(hostname) $HOME"' 2>"$CL_DIR/ssh.$i.err")
        [ "$got" = "cn$i $CL_DIR/home" ] || {
            echo "cluster: ssh to cn$i did not run a command within 10 s (got '$got', wanted" \
                 "'cn$i $CL_DIR/home'); ssh said: $(cat "$CL_DIR/ssh.$i.err"); sshd's log: $(cat "$CL_DIR/sshd.$i.log")"
            return 1
        }
    done
    echo "cluster: hosts cn1..cn$n are up ($CL_DIR)"
}

# The child of an unshare process: the first process of its namespaces.
cl_child() {
    local k c
    for k in $(seq 100); do
        c=$(pgrep -P "$1" | head -1)
        [ -n "$c" ] && { echo "$c"; return 0; }
        sleep 0.02
    done
    return 1
}

cl_wait_file() {
    local k
    for k in $(seq 250); do
        [ -e "$1" ] && return 0
        sleep 0.02
    done
    return 1
}

on() {
    local i=$1; shift
    nsenter -t "${CL_PID[$i]}" -n -u -m -p --wd="$PWD" -- "$@"
}

cluster_down() {
    [ -n "$CL_DIR" ] || return 0
    local p
    for p in "${CL_UNSHARE[@]}"; do kill -9 "$p" 2>/dev/null; done
    for p in "${CL_UNSHARE[@]}"; do wait "$p" 2>/dev/null; done
    # the namespaces' processes die with their first process
    local k
    for k in $(seq 100); do
        pgrep -f "$CL_DIR" >/dev/null || break
        sleep 0.05
    done
    if [ -n "$CL_DIR" ] && pgrep -f "$CL_DIR" >/dev/null; then
        echo "FAIL: left behind: $(pgrep -af "$CL_DIR")"
        FAILED=1
    fi
    CL_UNSHARE=()
    [ -n "$CL_DIR" ] && rm -rf "$CL_DIR"
}
