package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startEtcd runs a single-member etcd on free loopback ports. Its data is
// thrown away with the state directory, so fsync is skipped to keep a test
// run fast on slow disks.
func startEtcd(ctx context.Context, dataDir string) (string, func(), error) {
	clientURL, err := freeLoopbackURL()
	if err != nil {
		return "", nil, err
	}
	peerURL, err := freeLoopbackURL()
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "kubeharness"
	cfg.Dir = dataDir
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ClusterState = embed.ClusterStateFlagNew
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		e.Close()
		return "", nil, errors.New("not ready after a minute")
	case <-ctx.Done():
		e.Close()
		return "", nil, ctx.Err()
	}
	return clientURL.String(), e.Close, nil
}

// freeLoopbackURL asks the kernel for a free port. Another process could take
// it before etcd binds it; on a test machine that is rare enough to accept.
func freeLoopbackURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse(fmt.Sprintf("http://%s", l.Addr()))
}
