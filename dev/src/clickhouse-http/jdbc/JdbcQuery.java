import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

/**
 * The ClickHouse JDBC driver (com.clickhouse:clickhouse-jdbc, HTTP) against the platform's
 * ClickHouse HTTP interface: run by clickhouse-http.embedded.test.ts as
 * `java -cp clickhouse-jdbc-all.jar JdbcQuery.java <jdbc url> <key> <sql>`; prints the rows
 * tab-separated, one per line, or the error's message on stderr with exit code 1.
 */
public class JdbcQuery {
  public static void main(String[] args) throws Exception {
    // The source launcher loads this file in its own class loader: register the driver explicitly.
    Class.forName("com.clickhouse.jdbc.Driver");
    Properties props = new Properties();
    props.setProperty("user", "analyst");
    props.setProperty("password", args[1]);
    try (Connection c = DriverManager.getConnection(args[0], props); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(args[2])) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder line = new StringBuilder();
        for (int i = 1; i <= n; i++) line.append(i > 1 ? "\t" : "").append(rs.getString(i));
        System.out.println(line);
      }
    } catch (Exception e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }
}
