// WebSocket echo server (langbench ws-echo) using github.com/lesismal/nbio
// (nbhttp engine + nbhttp/websocket upgrader, default non-blocking epoll mode).
// Usage: ws_echo <port>   (listens on 127.0.0.1 only)
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"
	"github.com/lesismal/nbio/nbhttp/websocket"
)

var upgrader = newUpgrader()

func newUpgrader() *websocket.Upgrader {
	u := websocket.NewUpgrader()
	u.CheckOrigin = func(r *http.Request) bool { return true }
	u.OnMessage(func(c *websocket.Conn, messageType websocket.MessageType, data []byte) {
		// Same type, same bytes.
		_ = c.WriteMessage(messageType, data)
	})
	return u
}

func onWebsocket(w http.ResponseWriter, r *http.Request) {
	if _, err := upgrader.Upgrade(w, r, nil); err != nil {
		return
	}
}

func main() {
	port := "8080"
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	// nbio logs at Info level by default (engine start/stop lines); keep
	// only errors so nothing is printed while serving.
	logging.SetLevel(logging.LevelError)

	engine := nbhttp.NewEngine(nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{"127.0.0.1:" + port},
		Handler: http.HandlerFunc(onWebsocket), // any path
	})
	if err := engine.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "nbio start failed:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "go-nbio ws-echo listening on 127.0.0.1:"+port)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = engine.Shutdown(ctx)
	os.Exit(0)
}
