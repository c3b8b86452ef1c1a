# WebSocket echo server (langbench ws-echo): Ruby + em-websocket (EventMachine).
# Usage: ruby ws_echo.rb <port>   (listens on 127.0.0.1 only, any path)
require "em-websocket"
require "socket"

port = (ARGV[0] || 8080).to_i

# EventMachine uses select() (at most 1024 sockets) unless told to use epoll.
EM.epoll
EM.set_descriptor_table_size(65_536)

EM.run do
  %w[TERM INT].each { |sig| trap(sig) { EM.stop } }

  # Same as EM::WebSocket.run(host:, port:) { ... }, except that the listening
  # socket is made here: EventMachine's own start_server uses a fixed backlog of 100.
  listener = TCPServer.new("127.0.0.1", port)
  listener.listen(4096)
  EM.attach_server(listener, EM::WebSocket::Connection, { host: "127.0.0.1", port: port }) do |ws|
    # text stays text, binary stays binary, same bytes
    ws.onmessage { |msg| ws.send_text(msg) }
    ws.onbinary { |msg| ws.send_binary(msg) }
    ws.onerror { |_e| } # no per-connection logging; the library closes the socket
  end

  warn "ruby-em-websocket ws-echo listening on 127.0.0.1:#{port}"
end
