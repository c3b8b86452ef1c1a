// WebSocket echo server (langbench ws-echo): Java + Netty's WebSocket server codec.
// Usage: java -jar target/ws-echo.jar <port>   (listens on 127.0.0.1 only, any path)
// Build: mvn package (pom.xml compiles this file and shades Netty into the jar)
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import sun.misc.Signal;
import sun.misc.SignalHandler;

public final class WsEcho {
    private static final int MAX_MESSAGE = 64 * 1024 * 1024;

    /** Sends every text or binary message straight back (same frame type, same bytes). */
    @ChannelHandler.Sharable
    static final class EchoHandler extends SimpleChannelInboundHandler<WebSocketFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                ctx.writeAndFlush(frame.retain());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // no per-connection logging
        }
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;

        WebSocketServerProtocolConfig wsConfig = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath("/")
                .checkStartsWith(true) // accept upgrades on any path
                .decoderConfig(WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(MAX_MESSAGE)
                        .build())
                .build();
        EchoHandler echo = new EchoHandler();

        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        p.addLast(new HttpServerCodec());
                        p.addLast(new HttpObjectAggregator(65536));
                        p.addLast(new WebSocketServerProtocolHandler(wsConfig));
                        p.addLast(new WebSocketFrameAggregator(MAX_MESSAGE));
                        p.addLast(echo);
                    }
                });
        Channel server = b.bind("127.0.0.1", port).sync().channel();
        System.err.println("java-netty ws-echo listening on 127.0.0.1:" + port);

        // The JVM would exit with status 143 on SIGTERM: exit 0 instead.
        SignalHandler stop = sig -> {
            server.close();
            System.exit(0);
        };
        Signal.handle(new Signal("TERM"), stop);
        Signal.handle(new Signal("INT"), stop);

        server.closeFuture().sync();
    }
}
