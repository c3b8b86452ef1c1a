module langbench/ws-echo/go-gorilla

go 1.20

require github.com/gorilla/websocket v1.5.3
